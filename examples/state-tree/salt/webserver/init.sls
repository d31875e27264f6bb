{% set root = pillar['www_root'] ~ '/' ~ grains['id'] %}

{{ root }}/htdocs:
  file.directory:
    - makedirs: True

# The web server's config file, from a template fed by pillar.
{{ root }}/site.conf:
  file.managed:
    - source: salt://webserver/site.conf.j2
    - template: jinja
    - mode: '0640'
    - context:
        root: {{ root }}
    - require:
      - file: {{ root }}/htdocs

{{ root }}/htdocs/index.html:
  file.managed:
    - contents: '<h1>{{ pillar['site']['title'] }}</h1>'
    - require:
      - file: {{ root }}/htdocs

# A command without a service: runs only when the config changed.
check-config:
  cmd.run:
    - name: grep -c listen {{ root }}/site.conf
    - onchanges:
      - file: {{ root }}/site.conf
