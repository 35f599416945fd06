#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the benchmark table from the base's and the project's consoles."""

import re
import sys

LINE = re.compile(r'kpbench: kind=(?P<kind>\S+) (?P<rest>.*)$')
ROWS = [
    ('entry', 'per_hit', 'function entry (the ftrace site on x86)'),
    ('int3', 'per_hit', 'breakpoint in the body, pre_handler, optimization off'),
    ('int3post', 'per_hit', 'same, with a post_handler'),
    ('branch', 'per_hit', 'a branch in the body (arm64 simulates it), opt. off'),
    ('load', 'per_hit', 'a load in the body (arm64 steps it), opt. off'),
    ('opt', 'per_hit', 'in the body, optimization on'),
    ('optpost', 'per_hit', 'same, with a post_handler (stays a breakpoint)'),
    ('kretprobe', 'per_hit', 'kretprobe (entry and return)'),
    ('optret', 'per_hit', 'kretprobe, entry no ftrace site, optimization on'),
    ('crowd', 'per_hit', 'breakpoint, 4096 other probes registered after it'),
    ('crowd', 'register_us', 'register_kprobes(4096 nops in one function), ms'),
    ('crowd', 'unregister_us', 'unregister_kprobes(the same 4096), ms'),
    ('spread', 'register_us', 'register_kprobes(4096 over 64 functions), ms'),
    ('spread', 'unregister_us', 'unregister_kprobes(the same 4096), ms'),
    ('spread16k', 'per_hit', 'breakpoint, 16384 others in 256 functions'),
    ('spread16k', 'register_us', 'register_kprobes(those 16384), ms'),
    ('spread16k', 'unregister_us', 'unregister_kprobes(the same 16384), ms'),
    ('crowd1k', 'register_us', 'register_kprobes(1024 nops, one function), opt on, ms'),
    ('crowd1k', 'unregister_us', 'unregister_kprobes(the same 1024), ms'),
    ('entries', 'register_us', 'register_kprobes(256 function entries), ms'),
    ('entries', 'unregister_us', 'unregister_kprobes(the same 256), ms'),
]


def read(path):
    found = {}
    with open(path, errors='replace') as f:
        for raw in f:
            m = LINE.search(raw)
            if not m:
                continue
            fields = dict(kv.split('=', 1) for kv in m.group('rest').split()
                          if '=' in kv)
            if 'failed' in m.group('rest'):
                fields = {'failed': m.group('rest')}
            found[m.group('kind')] = fields
    return found


def cell(data, kind, key):
    d = data.get(kind)
    if d is None:
        return None, 'missing'
    if 'failed' in d:
        return None, 'failed'
    value = float(d[key])
    if key.endswith('_us'):
        value /= 1000    # virtual ms: millions of guest instructions
    return value, d.get('mode', '?')


def main(base_log, proj_log, header):
    base, proj = read(base_log), read(proj_log)
    print(header)
    print()
    fmt = '{:<54} {:>10} {:>10} {:>8}  {}'
    print('per hit: guest instructions; ms: virtual, one ms is a million instructions.')
    print('unregister waits for RCU grace periods, so its figure is not instruction-exact.')
    print(fmt.format('probe', 'base', 'project',
                     'change', 'patched as (base/project)'))
    bad = 0
    for kind, key, label in ROWS:
        b, bm = cell(base, kind, key)
        p, pm = cell(proj, kind, key)
        bs = f'{b:.2f}' if b is not None else bm
        ps = f'{p:.2f}' if p is not None else pm
        ch = f'{(p - b) / b * 100:+.1f}%' if b and p is not None else ''
        if b is None or p is None:
            bad += 1
        mode = f'{bm}/{pm}' if key == 'per_hit' else ''
        print(fmt.format(label, bs, ps, ch, mode))
    print()
    # The crowded hit next to the lone one: what a big table costs a hit.
    for name, data in (('base', base), ('project', proj)):
        one, _ = cell(data, 'int3', 'per_hit')
        many, _ = cell(data, 'spread16k', 'per_hit')
        if one and many is not None:
            print(f'{name}: hit with 16384 others / lone hit = {many / one:.3f}')
    # A simulated instruction next to a stepped one, in the same kernel.
    for name, data in (('base', base), ('project', proj)):
        stepped, _ = cell(data, 'load', 'per_hit')
        branch, _ = cell(data, 'branch', 'per_hit')
        if stepped and branch is not None:
            print(f'{name}: branch hit / load hit = {branch / stepped:.3f}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
