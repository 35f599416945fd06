#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the benchmark table from the base's and the project's consoles.

Every figure is held to its line's hit count: a probe that missed hits
(or hit twice) would otherwise look faster (or slower) than it is.  A
row whose kind did not count the hits it must (expected_hits()) is
printed as failed, on either side, with what went wrong below the table,
and the exit status is 1.
"""

import re
import sys

LINE = re.compile(r'kpbench: kind=(?P<kind>\S+) (?P<rest>.*)$')
# harness/modules/kpbench/kpbench.c: the timed loop's calls of the target.
NR_CALLS = 100000
ROWS = [
    ('floor', 'per_hit', 'floor: a direct call that only counts (no kprobe)'),
    ('floorregs', 'per_hit', 'floor with a pt_regs saved and restored (no kprobe)'),
    ('entry', 'per_hit', 'function entry (the ftrace site on x86)'),
    ('int3', 'per_hit', 'breakpoint in the body, pre_handler, optimization off'),
    ('int3post', 'per_hit', 'same, with a post_handler'),
    ('branch', 'per_hit', 'a branch in the body (arm64 simulates it), opt. off'),
    ('load', 'per_hit', 'a load in the body (arm64 steps it), opt. off'),
    ('opt', 'per_hit', 'in the body, optimization on'),
    ('optpost', 'per_hit', 'same, with a post_handler (stays a breakpoint)'),
    ('kretprobe', 'per_hit', 'kretprobe (entry and return)'),
    ('kr', 'per_hit', 'kprobe and kretprobe on one entry (the "kr" pair)'),
    ('optret', 'per_hit', 'kretprobe, entry no ftrace site, optimization on'),
    ('crowd', 'per_hit', 'breakpoint, 4096 other probes registered after it'),
    ('crowd', 'register_us', 'register_kprobes(4096 nops in one function), ms'),
    ('crowd', 'unregister_us', 'unregister_kprobes(the same 4096), ms'),
    ('spread', 'register_us', 'register_kprobes(4096 over 64 functions), ms'),
    ('spread', 'unregister_us', 'unregister_kprobes(the same 4096), ms'),
    ('lone', 'register_us', 'register_kprobe() x4096 (64 functions), ms'),
    ('lone', 'unregister_us', 'unregister_kprobe() x4096, ms'),
    ('loneret', 'register_us', 'register_kretprobe() x4096 (64 entries), ms'),
    ('loneret', 'unregister_us', 'unregister_kretprobe() x4096, ms'),
    ('spread16k', 'per_hit', 'breakpoint, 16384 others in 256 functions'),
    ('spread16k', 'register_us', 'register_kprobes(those 16384), ms'),
    ('spread16k', 'unregister_us', 'unregister_kprobes(the same 16384), ms'),
    ('crowd1k', 'register_us', 'register_kprobes(1024 nops, one function), opt on, ms'),
    ('crowd1k', 'unregister_us', 'unregister_kprobes(the same 1024), ms'),
    ('entries', 'register_us', 'register_kprobes(256 function entries), ms'),
    ('entries', 'unregister_us', 'unregister_kprobes(the same 256), ms'),
    ('events', 'register_us', '2000 p: events, one write() each, ms'),
    ('events', 'enable_us', 'their group enabled, ms'),
    ('events', 'disable_us', 'their group disabled, ms'),
    ('events', 'unregister_us', 'removed, one write() each, ms'),
    ('eventsw', 'register_us', 'the same 2000 in one write(), ms'),
    ('eventsw', 'enable_us', 'their group enabled, ms'),
    ('eventsw', 'disable_us', 'their group disabled, ms'),
    ('eventsw', 'unregister_us', 'removed at once (kprobe_events truncated), ms'),
    ('pmu', 'register_us', '1000 kprobe PMU events, opened one by one, ms'),
    ('pmu', 'unregister_us', 'closed one by one, ms'),
]


# The kinds whose probe sits on the target's entry, beside the floor.
ENTRY_KINDS = ('entry', 'kretprobe', 'kr')


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


def expected_hits(kind):
    """The hits= a kind's line must report.  kpbench.c's report() gives
    the probe's hits over one pass of the timed loop (the count over its
    NR_REPEAT passes, divided), and each pass calls the target NR_CALLS
    times: one hit per call, for every kind.  The kretprobe kinds count
    returns, one per call too.  The batch kinds' register_us and
    unregister_us come from the same line, measured around the same
    probe's hits: a wrong count fails them too, since the probes of that
    batch did not behave as registered."""
    return NR_CALLS


def taken_line(name, data, kind):
    """How many of a kpevents kind's functions the kernel took, when it
    refused some (the rows then time fewer probes than they say)."""
    d = data.get(kind, {})
    if d.get('refused', '0') != '0':
        return (f'{name}: kind={kind} took {d.get("taken")} probes, '
                f'refused {d["refused"]}')
    return None


def hits_problem(d, kind):
    """What is wrong with a line's hits=, or None."""
    want = expected_hits(kind)
    if 'hits' not in d:
        return f'kind={kind}: no hits=, expected {want}'
    if d['hits'] != str(want):
        return (f'kind={kind}: hits={d["hits"]}, expected {want} '
                f'(one per call of the timed loop, NR_CALLS in kpbench.c)')
    return None


# The floors are ftrace direct calls: a kernel without them (arm64 built
# for size, harness/kp --os) has no floor to measure, by design.
FLOOR_KINDS = ('floor', 'floorregs')


def no_floor(d, kind):
    return (kind in FLOOR_KINDS and 'failed' in d and
            'Operation not supported' in d['failed'])


def cell(data, kind, key):
    d = data.get(kind)
    if d is None:
        return None, 'missing'
    if no_floor(d, kind):
        return None, 'n/a'
    if 'failed' in d or hits_problem(d, kind):
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
        if (b is None or p is None) and not (bm == 'n/a' and pm == 'n/a'):
            bad += 1
        mode = f'{bm}/{pm}' if key == 'per_hit' else ''
        print(fmt.format(label, bs, ps, ch, mode))
    print()
    # Why a row failed: the module's own message, or the hits it counted.
    for name, data in (('base', base), ('project', proj)):
        for kind in dict.fromkeys(k for k, _, _ in ROWS):
            d = data.get(kind)
            if d is None:
                why = f'kind={kind}: no "kpbench: kind={kind}" line in its console'
            elif no_floor(d, kind):
                print(f'{name}: kind={kind}: no ftrace direct calls in this kernel, no floor')
                continue
            elif 'failed' in d:
                why = f'kind={kind} {d["failed"]}'
            else:
                why = hits_problem(d, kind)
            if why:
                print(f'FAILED {name}: {why}')
    for name, data in (('base', base), ('project', proj)):
        for kind in ('events', 'pmu'):
            line = taken_line(name, data, kind)
            if line:
                print(line)
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
    # What a kprobe adds to a kretprobe on the same entry, as a share of
    # what the same kprobe costs alone there.
    for name, data in (('base', base), ('project', proj)):
        pair, _ = cell(data, 'kr', 'per_hit')
        ret, _ = cell(data, 'kretprobe', 'per_hit')
        entry, _ = cell(data, 'entry', 'per_hit')
        if pair is not None and ret is not None and entry:
            print(f'{name}: (kr pair - kretprobe) / entry probe = '
                  f'{(pair - ret) / entry:.3f}')
    # The rows on the target's entry as multiples of the floors: the least
    # a call out of that ftrace site costs (an fentry program's, at best),
    # and the least one that hands its handler a pt_regs costs.
    for name, data in (('base', base), ('project', proj)):
        for floor_kind in ('floor', 'floorregs'):
            floor, _ = cell(data, floor_kind, 'per_hit')
            ratios = []
            for kind in ENTRY_KINDS:
                v, _ = cell(data, kind, 'per_hit')
                if floor and v is not None:
                    ratios.append(f'{kind} {v / floor:.2f}')
            if ratios:
                print(f'{name}: entry rows / {floor_kind}: ' + ', '.join(ratios))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
