#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send commands to a running guest's QEMU monitor and print the answers.

    qmon.py [--after SECONDS] [--out FILE] SOCKET COMMAND...

Every guest that harness/lib/guest.sh boots listens on a monitor socket,
/tmp/kp-NAME.monitor.  "info registers -a" shows where each vCPU is, which
is what a guest that hangs with interrupts off never prints itself.  With
--after the commands wait that long first (guest.sh uses it to take the
registers just before its timeout kills a guest); a guest that is gone by
then is not an error.
"""
import argparse
import socket
import sys
import time


def read_all(sock):
    out = b''
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            out += data
    except socket.timeout:
        pass
    return out.decode(errors='replace')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--after', type=float, default=0)
    ap.add_argument('--out')
    ap.add_argument('socket')
    ap.add_argument('command', nargs='+')
    args = ap.parse_args()
    if args.after > 0:
        time.sleep(args.after)
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(3)
    try:
        sock.connect(args.socket)
    except OSError as err:
        if args.after > 0:
            return 0
        print(f'qmon: cannot reach the QEMU monitor at {args.socket}: {err}; '
              'is the guest still running?', file=sys.stderr)
        return 1
    read_all(sock)  # the banner
    answers = []
    for cmd in args.command:
        sock.sendall((cmd + '\n').encode())
        answers.append(f'(qemu) {cmd}\n{read_all(sock)}')
    text = '\n'.join(answers)
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
