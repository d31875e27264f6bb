base:
  '*':
    - motd
  'role:web':
    - match: grain
    - webserver
