www_root: /srv/www
site:
  name: {{ grains['id'] }}.example.com
  title: Hello from {{ grains['id'] }}
  port: 8080
