import { describe, expect, it } from 'vitest';
import { CoreGrains } from '../../../plugins/grains/core-grains';
import { linuxDistributionGrains, osReleaseData } from '../../../plugins/grains/os-data';
import { deriveOsName, parseLsbRelease, parseOsRelease } from '../../../plugins/grains/os-release';
import { StaticConfig } from '../../../src/plugins/services/config';
import { NodeHost } from '../../../src/plugins/services/host';
import { fixture } from '../fixtures';

/** A host whose `/` is a fixture root holding the real release files of one distribution. */
class DistroHost extends NodeHost {
  constructor(
    root: string,
    private readonly arch: string,
  ) {
    super(fixture('roots', root));
  }
  override hostname(): string {
    return 'vm';
  }
  override kernel(): string {
    return 'Linux';
  }
  override machine(): string {
    return this.arch;
  }
  override cpuModels(): string[] {
    return [];
  }
  override networkInterfaces() {
    return {};
  }
  override env(): string | undefined {
    return undefined;
  }
}

const collect = (root: string, arch = 'x86_64') => new CoreGrains(new DistroHost(root, arch), new StaticConfig({ id: 'm1' })).collect();

// Salt 3007 (onedir) values, worked through salt/grains/core.py: _linux_distribution_data →
// _legacy_linux_distribution_data (the onedir Python cannot import lsb_release) → _osrelease_data.
describe('core grains name the distribution as Salt 3007 does', () => {
  it('Ubuntu 22.04: lsb-release gives codename and release; osfinger keeps the full release', async () => {
    expect(await collect('ubuntu2204')).toMatchObject({
      os: 'Ubuntu',
      os_family: 'Debian',
      osrelease: '22.04',
      osrelease_info: [22, 4],
      osmajorrelease: 22,
      oscodename: 'jammy',
      osfullname: 'Ubuntu',
      osfinger: 'Ubuntu-22.04',
      osarch: 'amd64',
      lsb_distrib_id: 'Ubuntu',
      lsb_distrib_release: '22.04',
      lsb_distrib_codename: 'jammy',
      lsb_distrib_description: 'Ubuntu 22.04.3 LTS',
    });
  });

  it('RHEL 9.3: os RedHat, codename from VERSION since PRETTY_NAME mentions Red Hat', async () => {
    expect(await collect('rhel93')).toMatchObject({
      os: 'RedHat',
      os_family: 'RedHat',
      osrelease: '9.3',
      osrelease_info: [9, 3],
      osmajorrelease: 9,
      oscodename: 'Plow',
      osfullname: 'Red Hat Enterprise Linux',
      osfinger: 'Red Hat Enterprise Linux-9',
      osarch: 'x86_64',
      lsb_distrib_id: 'Red Hat Enterprise Linux',
      lsb_distrib_release: '9.3',
      lsb_distrib_codename: 'Red Hat Enterprise Linux 9.3 (Plow)',
    });
  });

  it('Rocky 9.3: the codename is the bracketed part of PRETTY_NAME', async () => {
    expect(await collect('rocky93')).toMatchObject({
      os: 'Rocky',
      os_family: 'RedHat',
      osrelease: '9.3',
      osrelease_info: [9, 3],
      osmajorrelease: 9,
      oscodename: 'Blue Onyx',
      osfullname: 'Rocky Linux',
      osfinger: 'Rocky Linux-9',
      osarch: 'x86_64',
      lsb_distrib_codename: 'Blue Onyx',
    });
  });

  it('Alpine 3.19.1: oscodename is PRETTY_NAME, osarch the CPU architecture', async () => {
    const grains = await collect('alpine3191');
    expect(grains).toMatchObject({
      os: 'Alpine',
      os_family: 'Alpine',
      osrelease: '3.19.1',
      osrelease_info: [3, 19, 1],
      osmajorrelease: 3,
      oscodename: 'Alpine Linux v3.19',
      osfullname: 'Alpine Linux',
      osfinger: 'Alpine Linux-3',
      osarch: 'x86_64',
    });
    expect(grains).not.toHaveProperty('lsb_distrib_description');
  });

  it('Debian keeps its short os name in osfinger and maps osarch to the dpkg name', async () => {
    expect(await collect('debian12', 'aarch64')).toMatchObject({
      osfinger: 'Debian-12',
      osarch: 'arm64',
      lsb_distrib_codename: 'bookworm',
    });
  });
});

describe('os-release helpers', () => {
  it('derive os from NAME the way Salt shortens it', () => {
    expect(deriveOsName('Debian GNU/Linux', 'debian')).toBe('Debian');
    expect(deriveOsName('Red Hat Enterprise Linux', 'rhel')).toBe('RedHat');
    expect(deriveOsName('Linux Mint', 'linuxmint')).toBe('Mint');
    expect(deriveOsName('Pop!_OS', 'pop')).toBe('Pop');
    expect(deriveOsName('Astra Linux (Orel)', 'astra')).toBe('AstraLinuxCE');
    expect(deriveOsName('CentOS Stream', 'centos')).toBe('CentOS Stream');
  });

  it('parse lsb-release only for the DISTRIB keys, cutting values at characters Salt does not accept', () => {
    expect(parseLsbRelease('DISTRIB_ID=Ubuntu\nDISTRIB_DESCRIPTION="Ubuntu 22.04.3 LTS"\nOTHER=x\nDISTRIB_CODENAME=\n')).toEqual({
      lsb_distrib_id: 'Ubuntu',
      lsb_distrib_description: 'Ubuntu 22.04.3 LTS',
    });
  });

  it('keep non-numeric release parts as strings and set no osmajorrelease when the first is one', () => {
    expect(osReleaseData('Fedora', 'Fedora Linux', '40')).toEqual({
      osrelease_info: [40],
      osmajorrelease: 40,
      osfinger: 'Fedora Linux-40',
    });
    expect(osReleaseData('Debian', 'Debian GNU/Linux', 'trixie.sid')).toEqual({
      osrelease_info: ['trixie', 'sid'],
      osfinger: 'Debian-trixie',
    });
  });

  it('fill NAME and PRETTY_NAME defaults and read openSUSE names from the CPE', () => {
    const leap = parseOsRelease(
      'NAME="openSUSE Leap"\nVERSION="15.5"\nID="opensuse-leap"\nVERSION_ID="15.5"\nPRETTY_NAME="openSUSE Leap 15.5"\nCPE_NAME="cpe:/o:opensuse:leap:15.5"\n',
    );
    expect(linuxDistributionGrains({ osRelease: leap, lsbRelease: {}, distroRelease: null })).toMatchObject({
      os: 'SUSE',
      os_family: 'Suse',
      osfullname: 'Leap',
      osrelease: '15.5',
    });
    expect(linuxDistributionGrains({ osRelease: { ID: 'x' }, lsbRelease: {}, distroRelease: null })).toMatchObject({
      os: 'Linux',
      osfullname: 'Linux',
      oscodename: 'Linux',
      osrelease: '',
    });
  });

  it('name the system from lsb-release alone when there is no os-release', () => {
    const lsb = parseLsbRelease('DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=20.04\nDISTRIB_CODENAME=focal\n');
    expect(linuxDistributionGrains({ osRelease: null, lsbRelease: lsb, distroRelease: null })).toMatchObject({
      os: 'Ubuntu',
      os_family: 'Debian',
      osrelease: '20.04',
      oscodename: 'focal',
      osfullname: 'Ubuntu',
    });
  });
});
