#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest's serial console into test results.

The console holds the kernel log with the guest's own output written
through /dev/kmsg.  Suites announce themselves with "# kp-suite: NAME" and
print KTAP (KUnit, our shell suites) or TAP 13 (ftracetest); nesting is
by indentation.  Only leaf cases are counted.  A case a plan promised but
never printed is a failure, and so is any kernel splat, a guest that did
not reach the end of its job, or a planned suite that printed nothing.
The end of the job ("KP-JOB-END JOB rc=N") is not the end of the run: a
job that ends with rc other than 0, or a guest that then does not power
off (QEMU killed after the timeout, or exiting with an error), fails too.

A splat is found anywhere in its line, not only at its start: output
written straight to the console (a suite's stray stderr) may have begun
the line.  Our own KTAP lines (results, "# ..." diagnostics) may name a
splat, a test's name or a quoted log line, and are never one.

The one exception to the splat rule is an expected-splat window: a test
that provokes a splat on purpose prints "# kp-expect-splat: KIND" before
and "# kp-expect-splat-end" after.  Between the two, splat lines of that
KIND (one of EXPECTABLE) are accepted; the window fails if none appears,
and any other splat fails the run as it would anywhere else.

The total ("ktap.py total") holds every skip to the expected-skip list of
its arch (harness/expected-skips/ARCH, see load_skip_list()): a skip the
list does not name is a failure.  See expected_skips() for which runs the
lists cover.
"""

import argparse
import json
import os
import re
import sys

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(?P<indent>\s*)(?P<not>not )?ok (?P<num>\d+)(?: -)?\s*'
                    r'(?P<name>.*?)\s*(?:#\s*(?P<dir>[A-Za-z]+)\b\s*(?P<why>.*))?$')
PLAN = re.compile(r'^(?P<indent>\s*)1\.\.(?P<n>\d+)')
HEADER = re.compile(r'^(?P<indent>\s*)(KTAP version|TAP version)')
SUITE = re.compile(r'^# kp-suite: (?P<name>\S+)')
PLANNED = re.compile(r'^# kp-plan:(?P<names>.*)$')
DIAG = re.compile(r'^\s*# (?P<text>\S.*)$')
# A failure that gives no reason of its own is reported with the last of
# the diagnostics printed before it, so that a summary (CI's) says why.
FAIL_CONTEXT_LINES = 3
FAIL_CONTEXT_CHARS = 240
JOB_END = re.compile(r'KP-JOB-END (?P<job>\S+) rc=(?P<rc>\d+)')

# What opens a kernel splat.  Searched for in the whole line, once the
# timestamp is removed (see splat_in()).
SPLATS = [
    r'WARNING:',                     # WARN*(), lockdep, suspicious RCU usage
    r'BUG:',                         # BUG: KASAN, sleeping in atomic, ...
    r'kernel BUG at',
    r'Oops',
    r'Internal error:',
    r'Unable to handle kernel',
    # Not "traps: NAME[PID] general protection fault ip:...": the note of
    # a user process's fault.
    r'general protection fault(?! ip:)',
    r'Kernel panic',
    r'INFO: task \S+ blocked for more than',
    # Every RCU stall report: "rcu: INFO: rcu_preempt self-detected stall
    # on CPU", "... detected stalls on CPUs/tasks:", "... detected expedited
    # stalls on CPUs/tasks:", rcu_sched's the same, "INFO: rcu_tasks
    # detected stalls on tasks:", rcu_tasks_trace's "detected stalls?".
    r'INFO: \S*rcu\S* (?:self-)?detected (?:expedited )?stalls?',
    r'INFO: trying to register non-static key',
    r'UBSAN:',
    r'watchdog: BUG: soft lockup',
    r'(NMI )?[Ww]atchdog detected hard LOCKUP',
    # The console lost kernel messages: a splat may have been among them.
    r'\*\* \d+ printk messages dropped \*\*',
]
SPLAT = re.compile(r'(?:' + '|'.join(SPLATS) + r')')
# Our own KTAP output: results and diagnostics, at any indentation.
OWN = re.compile(r'^\s*(?:#|(?:not )?ok \d)')


def splat_in(line):
    """The splat in a (cleaned) console line, from where it starts, or None.
    The whole line is searched: stray output written straight to the
    console can start a line that a kernel report then continues.  Our own
    KTAP results and diagnostics are never splats, whatever they quote."""
    if OWN.match(line):
        return None
    m = SPLAT.search(line)
    return line[m.start():] if m else None


# The splats a test may provoke on purpose, by the name its window gives.
# Each pattern must match only the opening line of that one report.
EXPECTABLE = {
    # CONFIG_DEBUG_ATOMIC_SLEEP: a might-sleep call in atomic context.
    'sleep-in-atomic': re.compile(
        r'^BUG: sleeping function called from invalid context at '),
}
EXPECT_BEGIN = re.compile(r'^# kp-expect-splat: (?P<kind>\S*)\s*$')
EXPECT_END = re.compile(r'^# kp-expect-splat-end\s*$')
WINDOW = 'expected-splat window:'


def clean(line):
    return TIMESTAMP.sub('', line.rstrip('\r\n'))


class Case:
    def __init__(self, name, status, why=''):
        self.name, self.status, self.why = name, status, why

    def as_dict(self):
        return {'name': self.name, 'status': self.status, 'why': self.why}


class Parser:
    """Collects leaf results from KTAP/TAP text, one suite at a time."""

    def __init__(self, label):
        self.label = label
        self.cases = []
        self.suite = None
        self.seen_suites = set()
        self.planned = []
        self.levels = {}    # indent -> list of (num, name, status, why, children)
        self.plans = {}     # indent -> planned count
        self.names = {}     # indent -> "# Subtest:" name, for KUnit
        self.diags = []     # "# ..." lines since the last result

    def prefix(self):
        return f'{self.label}:{self.suite or "?"}'

    def feed(self, line):
        m = PLANNED.match(line)
        if m:
            self.planned += m.group('names').split()
            return
        m = SUITE.match(line)
        if m:
            self.flush()
            self.suite = m.group('name')
            self.seen_suites.add(self.suite)
            return
        m = HEADER.match(line)
        if m and not m.group('indent'):
            self.flush()
            return
        m = PLAN.match(line)
        if m:
            self.plans[len(m.group('indent'))] = int(m.group('n'))
            return
        m = RESULT.match(line)
        if m:
            self.result(m)
            self.diags = []
            return
        m = DIAG.match(line)
        if m and not m.group('text').startswith('Subtest:'):
            text = m.group('text')
            if len(text) > FAIL_CONTEXT_CHARS:
                text = text[:FAIL_CONTEXT_CHARS] + '...'
            self.diags = (self.diags + [text])[-FAIL_CONTEXT_LINES:]

    def result(self, m):
        depth = len(m.group('indent'))
        children = []
        for d in sorted(k for k in self.levels if k > depth):
            children += self.close_level(d)
        directive = (m.group('dir') or '').upper()
        status = 'fail' if m.group('not') else 'pass'
        why = m.group('why') or ''
        if directive == 'SKIP' and status == 'pass':
            status = 'skip'
        elif directive == 'TODO':
            status = 'skip'
            why = 'TODO ' + why
        elif directive and status == 'fail':
            why = f'{directive} {why}'.strip()
        if status == 'fail' and not why and self.diags:
            why = 'last said: ' + ' | '.join(self.diags)
        self.levels.setdefault(depth, []).append(
            (int(m.group('num')), m.group('name'), status, why, children))

    def close_level(self, depth):
        """Entries of one indentation level, with missing plan entries."""
        entries = self.levels.pop(depth, [])
        planned = self.plans.pop(depth, None)
        if planned is not None and len(entries) < planned:
            entries.append((0, f'cases {len(entries) + 1}..{planned}', 'fail',
                            'planned but never reported (crash or hang?)', []))
        return entries

    def flush(self):
        roots = []
        for d in sorted(set(self.levels) | set(self.plans)):
            roots += [(d, e) for e in self.close_level(d)]
        for _, entry in roots:
            self.emit(entry, self.prefix())
        self.plans.clear()

    def emit(self, entry, path):
        _, name, status, why, children = entry
        full = f'{path}/{name}'
        if not children:
            self.cases.append(Case(full, status, why))
            return
        for c in children:
            self.emit(c, full)
        if status == 'fail' and all(c[2] != 'fail' for c in children):
            self.cases.append(Case(full, 'fail', why or 'suite reported failure'))

    def finish(self):
        self.flush()
        for s in self.planned:
            if s not in self.seen_suites or not any(
                    c.name.startswith(f'{self.label}:{s}/') for c in self.cases):
                self.cases.append(Case(f'{self.label}:{s}', 'fail',
                                       'suite printed no results'))


class Windows:
    """Expected-splat windows: which splat lines they accept, and their
    verdicts.  A window's problems are reported like splats."""

    def __init__(self):
        self.open = None        # (line number, kind, accepted count)
        self.problems = []      # (line number, what went wrong)
        self.met = []           # (line number, kind, accepted count)

    def marker(self, no, line):
        """True if the line opens or closes a window."""
        m = EXPECT_BEGIN.match(line)
        if m:
            if self.open:
                self.problems.append((no, f'{WINDOW} the one opened at line '
                                          f'{self.open[0]} is still open'))
            kind = m.group('kind')
            if kind in EXPECTABLE:
                self.open = (no, kind, 0)
            else:
                self.open = None
                self.problems.append((no, f'{WINDOW} unknown kind '
                                          f'"{kind}" (known: {", ".join(EXPECTABLE)})'))
            return True
        if EXPECT_END.match(line):
            if not self.open:
                self.problems.append((no, f'{WINDOW} closed but never opened'))
            else:
                self.close()
            return True
        return False

    def accepts(self, line):
        if self.open and EXPECTABLE[self.open[1]].match(line):
            start, kind, seen = self.open
            self.open = (start, kind, seen + 1)
            return True
        return False

    def close(self):
        start, kind, seen = self.open
        if seen:
            self.met.append((start, kind, seen))
        else:
            self.problems.append((start, f'{WINDOW} expected a {kind} splat, '
                                         'and none appeared'))
        self.open = None

    def finish(self):
        if self.open:
            start, kind, _ = self.open
            self.problems.append((start, f'{WINDOW} ({kind}) never closed'))
            self.open = None


def scan(path, label, qemu_status=0):
    """Parse a console log; returns (cases, splats, job_end).  Splats
    include what went wrong with expected-splat windows."""
    parser = Parser(label)
    windows = Windows()
    splats = []
    job_end = None
    with open(path, errors='replace') as f:
        for no, raw in enumerate(f, 1):
            line = clean(raw)
            if windows.marker(no, line):
                continue
            splat = splat_in(line)
            if splat and not windows.accepts(splat):
                splats.append((no, line))
            m = JOB_END.search(line)
            if m:
                job_end = (m.group('job'), int(m.group('rc')))
            parser.feed(line)
    parser.finish()
    windows.finish()
    splats = sorted(splats + windows.problems)
    cases = parser.cases
    for no, kind, seen in windows.met:
        cases.append(Case(f'{label}:kernel-log/expected-{kind}-line-{no}', 'pass'))
    for no, line in splats[:5]:
        why = line if line.startswith(WINDOW) else f'splat: {line}'
        cases.append(Case(f'{label}:kernel-log/line-{no}', 'fail', why))
    if len(splats) > 5:
        cases.append(Case(f'{label}:kernel-log', 'fail',
                          f'{len(splats) - 5} more splat lines'))
    for name, why in ending(job_end, qemu_status, path):
        cases.append(Case(f'{label}:{name}', 'fail', why))
    return cases, splats, job_end


def ending(job_end, qemu_status, path):
    """What went wrong at the end of the guest's run, as (case name, why):
    nothing when the job ended with rc=0 and QEMU then exited with 0."""
    if job_end is None:
        return [('guest', 'killed after the timeout (hang)' if qemu_status == 124 else
                 f'guest stopped before the end of its job (qemu status {qemu_status})')]
    job, rc = job_end
    bad = []
    if rc != 0:
        bad.append(('guest/job-status',
                    f'the job ended with "KP-JOB-END {job} rc={rc}": a command of '
                    f'harness/guest/jobs/{job}.sh failed (for the test job, the last '
                    f"suite's script exited with {rc}); find it above that line in {path}"))
    if qemu_status == 124:
        regs = path[:-len('.console.log')] + '.hang-registers.txt' \
            if path.endswith('.console.log') else 'NAME.hang-registers.txt'
        bad.append(('guest/shutdown',
                    f'the job "{job}" ended, then the guest hung in "reboot -f" and was '
                    f'killed after the timeout: read what the kernel printed after '
                    f'KP-JOB-END in {path} and where its vCPUs were in {regs}'))
    elif qemu_status != 0:
        bad.append(('guest/shutdown',
                    f'the job "{job}" ended, then QEMU exited with status {qemu_status} '
                    f'instead of 0 at the guest\'s "reboot -f": read what the kernel '
                    f'printed after KP-JOB-END in {path} and QEMU\'s own message above'))
    return bad


def report(cases, out=None):
    out = out or sys.stdout
    for c in cases:
        if c.status != 'pass':
            tag = 'FAIL' if c.status == 'fail' else 'SKIP'
            print(f'  {tag} {c.name}' + (f' -- {c.why}' if c.why else ''), file=out)


def counts(cases):
    p = sum(c.status == 'pass' for c in cases)
    f = sum(c.status == 'fail' for c in cases)
    s = sum(c.status == 'skip' for c in cases)
    return p, f, s


# How much of the console a failed run shows around its first splat: CI
# keeps only the run's output, not the console, so what the kernel said
# there must be in the output.
EXCERPT_BEFORE, EXCERPT_AFTER = 5, 80


def excerpt(path, no, out=None):
    """Print the console lines around line NO (1-based), after a heading."""
    out = out or sys.stdout
    first, last = max(1, no - EXCERPT_BEFORE), no + EXCERPT_AFTER
    print(f'  the console around line {no} ({path}, lines {first}-{last}):', file=out)
    with open(path, errors='replace') as f:
        for i, raw in enumerate(f, 1):
            if i > last:
                break
            if i >= first:
                print(f'  | {raw.rstrip()}', file=out)


def cmd_parse(a):
    cases, splats, _ = scan(a.log, a.label, a.qemu_status)
    p, f, s = counts(cases)
    print(f'{a.label}: {p} passed, {f} failed, {s} skipped')
    report(cases)
    kernel = [no for no, line in splats if not line.startswith(WINDOW)]
    if kernel:
        excerpt(a.log, kernel[0])
    if a.json:
        with open(a.json, 'w') as fp:
            json.dump([c.as_dict() for c in cases], fp, indent=1)
    return 1 if f else 0


def cmd_check(a):
    """A boot that runs no suites (demo): only splats and the end count."""
    _, splats, job_end = scan(a.log, 'boot', a.qemu_status)
    bad = []
    for no, line in splats:
        bad.append(f'line {no}: {line}')
    if job_end is None:
        bad.append('the guest did not finish its job'
                   + (' (hang)' if a.qemu_status == 124 else ''))
    else:
        bad += [why for _, why in ending(job_end, a.qemu_status, a.log)]
    if bad:
        print(f'FAILED ({a.log}):')
        for b in bad:
            print('  ' + b)
        return 1
    print(f'OK: job finished, no kernel splat ({a.log})')
    return 0


def cmd_failure(a):
    with open(a.json, 'w') as fp:
        json.dump([Case(a.name, 'fail', a.why).as_dict()], fp)
    return 0


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
SKIPS_DIR = os.path.join(ROOT, 'harness', 'expected-skips')
# What a list entry's "[QUALIFIERS]" restrict it to, each a (dimension,
# value) of the run's config: the debug config (harness/config/debug.config,
# "harness/kp test --debug" and every stress run) or the default one; the
# small config or a distro one (harness/lib/distro.sh, "--distro"); the
# kunit.py run whose kernel has no CONFIG_PREEMPTION ("kunit.py-ARCH-nopreempt").
# Several qualifiers, separated by spaces, must all hold.
QUALIFIERS = {'debug': ('debug', True), 'nodebug': ('debug', False),
              'distro': ('distro', True), 'small': ('distro', False),
              'nopreempt': ('nopreempt', True)}
SKIP_ENTRY = re.compile(r'^(?:\[(?P<qual>[^\]]*)\]\s*)?'
                        r'(?P<name>.*?)\s+--(?:\s+(?P<reason>.*?))?\s*$')
# A run's label (harness/lib/guest.sh, run_name(); the W=1 check's is
# "project-ARCH"): VARIANT-ARCH[-distro[-FLAVOUR]][-debug][-JOB], or
# kunit.py's "kunit.py-ARCH".
RUN_LABEL = re.compile(r'^(?P<variant>project|base)-(?P<arch>[^-]+)'
                       r'(?P<distro>-distro(?:-rt|-whole)?)?(?P<debug>-debug)?(?:-.+)?$')
KUNITPY_LABEL = re.compile(r'^kunit\.py-(?P<arch>[^-]+)(?P<nopreempt>-nopreempt)?$')


class SkipEntry:
    def __init__(self, name, reason, only, line):
        # only: {dimension: value} that the run's config must have for the
        # entry to hold (empty: every config).
        self.name, self.reason, self.only, self.line = name, reason, only, line

    def holds(self, config):
        return all(config[k] == v for k, v in self.only.items())

    def describe(self):
        return ' '.join(q for q, kv in QUALIFIERS.items()
                        if self.only.get(kv[0]) == kv[1])


def config_words(config):
    return (('debug' if config['debug'] else 'default') + ', ' +
            ('distro' if config['distro'] else 'small') +
            (', nopreempt' if config['nopreempt'] else ''))


def load_skip_list(path):
    """An expected-skip list: case name -> SkipEntry.  Each line is
    "[QUALIFIERS] NAME -- REASON" (the qualifiers optional, see QUALIFIERS),
    NAME being the case's name without its "LABEL:"; "#" starts a comment
    line.  Raises ValueError, naming the line, on a line without a reason,
    an unknown or contradicting qualifier or a name listed twice."""
    entries = {}
    with open(path) as f:
        for no, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            m = SKIP_ENTRY.match(line)
            if not m or not m.group('name') or not m.group('reason'):
                raise ValueError(f'{path}, line {no}: not "[QUALIFIERS] CASE -- REASON" '
                                 f'with a reason: {line}')
            only = {}
            for qual in (m.group('qual') or '').split():
                if qual not in QUALIFIERS:
                    raise ValueError(f'{path}, line {no}: unknown qualifier [{qual}] '
                                     f'(known: {", ".join(QUALIFIERS)})')
                dim, val = QUALIFIERS[qual]
                if only.get(dim, val) != val:
                    raise ValueError(f'{path}, line {no}: qualifiers that contradict '
                                     f'each other: [{m.group("qual")}]')
                only[dim] = val
            name = m.group('name')
            if name in entries:
                raise ValueError(f'{path}, line {no}: "{name}" is listed already, '
                                 f'at line {entries[name].line}')
            entries[name] = SkipEntry(name, m.group('reason'), only, no)
    return entries


def run_of(label):
    """(kind, arch, config) of a result label: kind is "project", "base",
    "kunit.py", or None for what runs on no arch (the harness's self-tests,
    the host's documentation checks); config is {"debug": bool,
    "distro": bool}."""
    m = RUN_LABEL.match(label)
    if m:
        return m.group('variant'), m.group('arch'), {
            'debug': bool(m.group('debug')), 'distro': bool(m.group('distro')),
            'nopreempt': False}
    m = KUNITPY_LABEL.match(label)
    if m:
        return 'kunit.py', m.group('arch'), {'debug': False, 'distro': False,
                                             'nopreempt': bool(m.group('nopreempt'))}
    return None, None, {'debug': False, 'distro': False, 'nopreempt': False}


def shown(path):
    """A path as the messages name it: from the top of the repository."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith('..') else rel


def expected_skips(cases, skips_dir=SKIPS_DIR):
    """The cases, with each skip that its arch's list does not expect
    turned into a failure that says what to do.  A skip that is expected
    stays a skip (counted and named as one), not a pass.

    The lists are the project's: they hold the project's runs (test,
    tools, stress, W=1) and kunit.py's to the design facts of each arch.
    A base run (--base) is exempt: it runs our suites on the unmodified
    kernel, which lacks what they test, so that its skips show what the
    base does not have; it is a reference beside the project, never the
    verdict on it.  A skip in a run of no arch (the harness's self-tests,
    the host checks) has no list to be on, and fails."""
    lists = {}
    out = []
    for c in cases:
        if c.status != 'skip':
            out.append(c)
            continue
        label, _, name = c.name.partition(':')
        kind, arch, config = run_of(label)
        if kind == 'base':
            out.append(c)
            continue
        skipped = f'skipped ({c.why})' if c.why else 'skipped (no reason given)'
        if kind is None:
            out.append(Case(c.name, 'fail', f'{skipped}, and "{label}" is no run of an arch: '
                            'no expected-skip list covers it (harness/expected-skips/ '
                            'holds one per arch); make it run, or remove the case'))
            continue
        path = os.path.join(skips_dir, arch)
        if arch not in lists:
            try:
                lists[arch] = load_skip_list(path)
            except FileNotFoundError:
                lists[arch] = {}
            except (OSError, ValueError) as e:
                lists[arch] = {}
                out.append(Case(f'expected-skips:{arch}', 'fail', f'unreadable list: {e}'))
        entry = lists[arch].get(name)
        if entry and entry.holds(config):
            out.append(c)
            continue
        if entry:
            why = (f'{shown(path)} expects it only on the [{entry.describe()}] '
                   f'config (line {entry.line}), and this run has the '
                   f'{config_words(config)} one')
        else:
            why = f'{shown(path)} does not list "{name}"'
        out.append(Case(c.name, 'fail', f'{skipped}, and this skip is not expected on {arch}: '
                        f'{why}.  Fix the kernel or the test so that the case runs; '
                        f'or, only if the skip is a design fact of {arch} or of its '
                        f'{config_words(config)} config, add it to {shown(path)} with its '
                        f'reason, as "{name} -- WHY." (with qualifiers such as "[nodebug]", '
                        '"[debug]", "[small]" or "[distro]" first if it holds for such '
                        'configs only)'))
    return out


def cmd_total(a):
    cases = []
    for path in a.files:
        try:
            with open(path) as fp:
                cases += [Case(d['name'], d['status'], d['why']) for d in json.load(fp)]
        except (OSError, ValueError) as e:
            cases.append(Case(path, 'fail', f'no results: {e}'))
    cases = expected_skips(cases, a.expected_skips)
    p, f, s = counts(cases)
    print()
    print('Summary:')
    report(cases)
    print(f'{s} skipped (named above)' if s else '0 skipped')
    print(f'{p} passed, {f} failed')
    return 1 if f else 0


# "ok 6 name # SKIP reason" in the kernel log kunit.py keeps.
KUNIT_SKIP = re.compile(r'^\s*ok \d+ (.+?) # SKIP ?(.*)$')


def kunitpy_skip_reasons(log):
    """Case name -> the reason its skip gave, from kunit.py's kernel log
    (its JSON keeps only the status, and a skip must name its reason)."""
    reasons = {}
    try:
        with open(log, errors='replace') as f:
            for raw in f:
                m = KUNIT_SKIP.match(clean(raw))
                if m and m.group(2):
                    reasons.setdefault(m.group(1), m.group(2))
    except OSError:
        pass
    return reasons


def kunitpy_cases(group, prefix, out, reasons=None):
    """Leaf cases of kunit.py's JSON (groups nest: suites, parameters)."""
    reasons = reasons or {}
    name = group.get('name', '?')
    path = prefix if name == 'KUnit Test Group' else f'{prefix}{name}/'
    for c in group.get('test_cases', []):
        status = {'PASS': 'pass', 'SKIP': 'skip'}.get(c.get('status'), 'fail')
        why = '' if status == 'pass' else f"kunit.py: {c.get('status')}"
        if status == 'skip' and c.get('name') in reasons:
            why = reasons[c.get('name')]
        # kunit.py names a case that never finished with an empty name.
        name = c.get('name') or '(unfinished: the kernel stopped or hung)'
        out.append(Case(path + name, status, why))
    for g in group.get('sub_groups', []):
        kunitpy_cases(g, path, out, reasons)


# kunit.py's own report of KTAP it could not follow ("[ERROR] Test: NAME:
# what was wrong"): it still counts such a run as passed.
KUNITPY_ERROR = re.compile(r'\[ERROR\] Test: (.*?): (.*)$')


def kunitpy_parse_errors(output):
    """(case, message) for each line kunit.py could not parse, from its output."""
    found = []
    try:
        with open(output, errors='replace') as f:
            for raw in f:
                m = KUNITPY_ERROR.search(clean(raw))
                if m:
                    found.append((m.group(1), m.group(2)))
    except OSError:
        pass
    return found


def cmd_kunitpy(a):
    """kunit.py's --json results, and the kernel log it kept, as our cases."""
    cases = []
    try:
        with open(a.results) as fp:
            kunitpy_cases(json.load(fp), f'{a.label}:', cases,
                          kunitpy_skip_reasons(a.log))
    except (OSError, ValueError) as e:
        cases.append(Case(f'{a.label}:results', 'fail', f'{a.why}; no results: {e}'))
    if not cases:
        cases.append(Case(f'{a.label}:results', 'fail', f'{a.why}; no test case ran'))
    elif a.status != 0 and all(c.status != 'fail' for c in cases):
        cases.append(Case(f'{a.label}:exit', 'fail', a.why))
    for name, msg in kunitpy_parse_errors(a.output) if a.output else []:
        cases.append(Case(f'{a.label}:ktap/{name}', 'fail',
                          f'kunit.py could not parse its KTAP: {msg}'))
    splats = []
    try:
        with open(a.log, errors='replace') as f:
            splats = [(no, clean(raw)) for no, raw in enumerate(f, 1)
                      if splat_in(clean(raw))]
    except OSError as e:
        cases.append(Case(f'{a.label}:kernel-log', 'fail', f'no kernel log: {e}'))
    for no, line in splats[:5]:
        cases.append(Case(f'{a.label}:kernel-log/line-{no}', 'fail', f'splat: {line}'))
    p, f, s = counts(cases)
    print(f'{a.label}: {p} passed, {f} failed, {s} skipped')
    report(cases)
    with open(a.json, 'w') as fp:
        json.dump([c.as_dict() for c in cases], fp, indent=1)
    return 1 if f else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('parse')
    p.add_argument('log')
    p.add_argument('--label', required=True)
    p.add_argument('--qemu-status', type=int, default=0)
    p.add_argument('--json')
    p.set_defaults(fn=cmd_parse)
    p = sub.add_parser('check')
    p.add_argument('log')
    p.add_argument('--qemu-status', type=int, default=0)
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser('failure')
    p.add_argument('name')
    p.add_argument('--why', default='')
    p.add_argument('--json', required=True)
    p.set_defaults(fn=cmd_failure)
    p = sub.add_parser('kunitpy')
    p.add_argument('results')
    p.add_argument('--label', required=True)
    p.add_argument('--log', required=True)
    p.add_argument('--status', type=int, default=0)
    p.add_argument('--output', help="kunit.py's own output, for its parse errors")
    p.add_argument('--why', default='kunit.py failed')
    p.add_argument('--json', required=True)
    p.set_defaults(fn=cmd_kunitpy)
    p = sub.add_parser('total')
    p.add_argument('files', nargs='*')
    p.add_argument('--expected-skips', default=SKIPS_DIR, metavar='DIR',
                   help='the expected-skip lists, one file per arch (default: %(default)s)')
    p.set_defaults(fn=cmd_total)
    a = ap.parse_args()
    return a.fn(a)


if __name__ == '__main__':
    sys.exit(main())
