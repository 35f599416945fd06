#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Derive a distro kernel's config fragment from Debian's own config.

usage: distro_config.py SELECT DEBIAN_CONFIG[.xz] SOURCE > FRAGMENT
       distro_config.py --builtin DEBIAN_CONFIG[.xz] SOURCE > FRAGMENT

Every symbol of DEBIAN_CONFIG whose name matches a line of SELECT
(harness/config/distro.select) goes into FRAGMENT with Debian's value:
"# CONFIG_X is not set" as CONFIG_X=n, so that the build's config check
holds it off.  A module value (=m) is refused: a selected option decides
how all of the kernel is compiled and must be built in.  SOURCE names
Debian's config in the fragment's header.

With --builtin, every symbol of DEBIAN_CONFIG goes into FRAGMENT, a module
(=m) as CONFIG_X=n: Debian's whole config with its modules left out, as
"make mod2noconfig" leaves it (the whole-config long forms).
"""

import lzma
import re
import sys


def patterns(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                out.append(re.compile(line))
    return out


def debian_values(path):
    opener = lzma.open if path.endswith('.xz') else open
    values = {}
    with opener(path, 'rt') as f:
        for line in f:
            m = re.match(r'^CONFIG_(\w+)=(.*)$', line)
            if m:
                values[m.group(1)] = m.group(2)
                continue
            m = re.match(r'^# CONFIG_(\w+) is not set$', line)
            if m:
                values[m.group(1)] = 'n'
    return values


def read_values(path):
    values = debian_values(path)
    if not values:
        sys.exit(f'distro_config.py: {path} holds no CONFIG_ line; '
                 'is it a kernel config?')
    return values


def builtin(path, source):
    values = read_values(path)
    print(f'# Taken from Debian: {source}, whole, modules left out')
    for sym, val in values.items():
        print(f'CONFIG_{sym}={"n" if val == "m" else val}')


def main():
    if len(sys.argv) != 4:
        sys.exit('\n'.join(__doc__.strip().splitlines()[2:4]))
    if sys.argv[1] == '--builtin':
        builtin(sys.argv[2], sys.argv[3])
        return
    select = patterns(sys.argv[1])
    values = read_values(sys.argv[2])
    print(f'# Taken from Debian: {sys.argv[3]}, by {sys.argv[1].split("/")[-1]}')
    bad = []
    for sym, val in values.items():
        if not any(p.fullmatch(sym) for p in select):
            continue
        if val == 'm':
            bad.append(sym)
            continue
        print(f'CONFIG_{sym}={val}')
    if bad:
        sys.exit('distro_config.py: Debian builds these as modules, but a '
                 'selected option must be built in; narrow the pattern in '
                 f'{sys.argv[1]}: ' + ' '.join(bad))


if __name__ == '__main__':
    main()
