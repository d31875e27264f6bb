{{ pillar['www_root'] }}/motd-{{ grains['id'] }}:
  file.managed:
    - makedirs: True
    - contents: |
        Welcome to {{ grains['id'] }} ({{ grains['os'] }}), managed by brine.
