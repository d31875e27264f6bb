base:
  '*':
    - site
