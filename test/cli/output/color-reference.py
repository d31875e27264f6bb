# Produces color-reference.json: Salt 3007.10's own nested and highstate outputters, run with colour
# on, over the cases of that file (stub salt packages stand in for the heavy imports these two
# outputters do not need). Salt's source: tar xzf ../shared/salt-ref/salt-3007.10.tar.gz -C /tmp/saltsrc
#   python3 -c 'import json; print(json.dumps([{k: v for k, v in c.items() if k != "expected"}
#     for c in json.load(open("color-reference.json"))]))' | python3 color-reference.py
# prints the expected texts, in order.
import importlib.util, json, os, sys, types
SRC = os.environ.get('SALT_SRC', '/tmp/saltsrc/salt')
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
for pkg in ['salt', 'salt.utils']:
    m = types.ModuleType(pkg); m.__path__ = []; sys.modules[pkg] = m
out = types.ModuleType('salt.output'); out.__path__ = []; sys.modules['salt.output'] = out
out.strip_esc_sequence = lambda t: t.replace('\033', '?') if isinstance(t, str) else t
su = types.ModuleType('salt.utils.stringutils'); su.to_unicode = lambda s: s; su.to_str = lambda s: s; sys.modules['salt.utils.stringutils'] = su
sd = types.ModuleType('salt.utils.data'); sd.decode = lambda s: s; sys.modules['salt.utils.data'] = sd
sys.modules['salt'].utils = sys.modules['salt.utils']; sys.modules['salt'].output = out
sys.modules['salt.utils'].stringutils = su; sys.modules['salt.utils'].data = sd
load('salt.utils.textformat', SRC + '/utils/textformat.py')
color = load('salt.utils.color', SRC + '/utils/color.py'); sys.modules['salt.utils'].color = color
nested = load('salt.output.nested', SRC + '/output/nested.py')
highstate = load('salt.output.highstate', SRC + '/output/highstate.py')
def out_format(data, outputter, opts, **kw):
    nested.__opts__ = opts
    return nested.output(data, **kw).rstrip()
out.out_format = out_format
cases = json.load(sys.stdin)
res = []
for c in cases:
    opts = dict(color=True, state_verbose=True, state_output_profile=True)
    opts.update(c.get('opts', {}))
    if c['outputter'] == 'nested':
        nested.__opts__ = opts
        text = nested.output(c['data'], _retcode=c.get('retcode', 0))
    else:
        highstate.__opts__ = opts
        nested.__opts__ = opts
        text = highstate.output(c['data'])
    res.append(text.rstrip())
json.dump(res, sys.stdout, ensure_ascii=False)
