import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { createInterface } from 'node:readline/promises';
import { commonFlags, forceColorFlag, logFileFlags, noColorFlag } from '../flags';

export default class SaltKey extends Command {
  static override summary = "Manage the master's minion keys: list, accept, reject, delete, fingerprints";
  static override examples = ['salt-key -L', 'salt-key -A -y', "salt-key -a 'web*'", 'salt-key -d web2 -y', 'salt-key -F'];
  static override flags = {
    ...commonFlags,
    'no-color': noColorFlag,
    'force-color': forceColorFlag,
    ...logFileFlags,
    list: Flags.string({
      char: 'l',
      description: 'List keys in one state: acc, pre|un, rej, den or all',
      options: ['acc', 'accepted', 'pre', 'un', 'unaccepted', 'rej', 'rejected', 'den', 'denied', 'all'],
    }),
    'list-all': Flags.boolean({ char: 'L', description: 'List all keys' }),
    accept: Flags.string({ char: 'a', description: 'Accept the unaccepted keys matching a glob' }),
    'accept-all': Flags.boolean({ char: 'A', description: 'Accept all unaccepted keys' }),
    reject: Flags.string({ char: 'r', description: 'Reject the unaccepted keys matching a glob' }),
    'reject-all': Flags.boolean({ char: 'R', description: 'Reject all unaccepted keys' }),
    delete: Flags.string({ char: 'd', description: 'Delete the keys matching a glob' }),
    'delete-all': Flags.boolean({ char: 'D', description: 'Delete all keys' }),
    print: Flags.string({ char: 'p', description: 'Print the public keys matching a glob' }),
    'print-all': Flags.boolean({ char: 'P', description: 'Print all public keys' }),
    finger: Flags.string({ char: 'f', description: 'Print the fingerprints of the keys matching a glob' }),
    'finger-all': Flags.boolean({ char: 'F', description: 'Print all fingerprints' }),
    yes: Flags.boolean({ char: 'y', description: 'Answer yes to every question' }),
    'include-all': Flags.boolean({ description: 'Accept or reject keys in any state, not only unaccepted ones' }),
    'include-rejected': Flags.boolean({ description: 'Accept rejected keys too' }),
    'include-accepted': Flags.boolean({ description: 'Reject accepted keys too' }),
    'include-denied': Flags.boolean({ description: 'Delete denied keys too' }),
    out: Flags.string({ description: 'Print with this outputter', options: ['json', 'nested', 'yaml', 'txt', 'key'] }),
    'gen-keys': Flags.string({ description: 'Generate a key pair with this name' }),
    'gen-keys-dir': Flags.string({ description: 'Where --gen-keys writes the pair', default: '.' }),
    keysize: Flags.integer({ description: 'Key size in bits for --gen-keys and --auto-create', default: 2048 }),
    'gen-signature': Flags.boolean({
      description: "Sign the master's public key with the signing key (master_pubkey_signature, for master_use_pubkey_signature)",
    }),
    priv: Flags.string({ description: 'The private key --gen-signature signs with (default: master_sign.pem in pki_dir)' }),
    pub: Flags.string({ description: 'The public key --gen-signature signs (default: master.pub in pki_dir)' }),
    'signature-path': Flags.string({ description: 'The folder --gen-signature writes the signature to (default: pki_dir)' }),
    'auto-create': Flags.boolean({ description: 'With --gen-signature: make the signing key pair when there is none' }),
    'hash-type': Flags.string({ description: 'Hash of the fingerprints', default: 'sha256' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltKey);
    const { clientLogging, loadMasterForCli } = await import('../context.js');
    const { runSaltKey } = await import('../salt-key.js');
    const { useColor } = await import('../output/colors.js');
    const { config } = loadMasterForCli(flags['config-dir'], flags['log-level']);
    const logging = clientLogging(flags);
    const code = await runSaltKey(
      {
        pkiDir: config.pki_dir,
        list: flags.list as 'all' | undefined,
        listAll: flags['list-all'],
        accept: flags.accept,
        acceptAll: flags['accept-all'],
        reject: flags.reject,
        rejectAll: flags['reject-all'],
        delete: flags.delete,
        deleteAll: flags['delete-all'],
        print: flags.print,
        printAll: flags['print-all'],
        finger: flags.finger,
        fingerAll: flags['finger-all'],
        yes: flags.yes,
        includeAll: flags['include-all'],
        includeRejected: flags['include-rejected'],
        includeAccepted: flags['include-accepted'],
        includeDenied: flags['include-denied'],
        out: flags.out,
        genKeys: flags['gen-keys'],
        genKeysDir: flags['gen-keys-dir'],
        keysize: flags.keysize,
        genSignature: flags['gen-signature'],
        priv: flags.priv,
        pub: flags.pub,
        signaturePath: flags['signature-path'],
        autoCreate: flags['auto-create'],
        signKeyName: config.master_sign_key_name,
        signatureFile: config.master_pubkey_signature,
        hashType: flags['hash-type'],
        color: useColor(flags, process.stdout.isTTY === true),
        log: logging.getLogger('salt.cli.key'),
      },
      {
        out: (t: string) => process.stdout.write(t),
        err: (t: string) => process.stderr.write(t),
        confirm: async (question: string) => {
          const rl = createInterface({ input: process.stdin, output: process.stdout });
          try {
            const answer = (await rl.question(question)).trim().toLowerCase();
            // Salt names the default in capitals: [n/Y] means yes, [N/y] means no.
            if (answer === '') return question.includes('[n/Y]');
            return answer.startsWith('y');
          } finally {
            rl.close();
          }
        },
      },
    );
    await logging.close();
    process.exitCode = code;
  }
}
