# SPDX-License-Identifier: LGPL-2.1-or-later
"""hotplug-latency's helper: loop devices and the kernel's uevent socket.

  add N | remove N                       LOOP_CTL_ADD / LOOP_CTL_REMOVE of loopN
  measure N IMG VALUE ROUNDS             per round: read_ahead_kb to 128, bind
                                         loopN to IMG, take the
                                         time of its "change" uevent, read
                                         read_ahead_kb until it is VALUE; print
                                         the milliseconds from the uevent and
                                         from losetup's start, a line a round
"""
import fcntl
import os
import socket
import subprocess
import sys
import time

LOOP_CTL_ADD, LOOP_CTL_REMOVE = 0x4C80, 0x4C81
NETLINK_KOBJECT_UEVENT = 15


def loopctl(op, n):
    fd = os.open("/dev/loop-control", os.O_RDWR)
    try:
        fcntl.ioctl(fd, op, n)
    finally:
        os.close(fd)


def bind_event(sock, name):
    """the time the bind's change uevent of NAME arrived (the kernel's group)"""
    want = ("change@", "/" + name)
    while True:
        data = sock.recv(65536)
        t = time.monotonic()
        head = data.split(b"\0", 1)[0].decode(errors="replace")
        if head.startswith(want[0]) and head.endswith(want[1]):
            return t


def measure(n, img, value, rounds):
    name = "loop%d" % n
    ra = "/sys/block/%s/queue/read_ahead_kb" % name
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.bind((0, 1))  # group 1: the kernel's events
    for _ in range(rounds):
        with open(ra, "w") as f:  # unbound: not the hold's; the bind keeps it
            f.write("128")
        ts = time.monotonic()
        subprocess.run(["losetup", "-r", "/dev/" + name, img], check=True)
        t0 = bind_event(sock, name)
        deadline = t0 + 5
        while True:
            with open(ra) as f:
                if f.read().strip() == value:
                    break
            if time.monotonic() > deadline:
                sys.exit("%s: %s not %s after 5 s" % (name, ra, value))
        t1 = time.monotonic()
        print("%.3f %.3f" % ((t1 - t0) * 1000, (t1 - ts) * 1000))
        subprocess.run(["losetup", "-d", "/dev/" + name], check=True)
        # the unbind's change: no media, so the next bind is a new disk to tune
        time.sleep(0.05)


def main():
    op, n = sys.argv[1], int(sys.argv[2])
    if op == "add":
        loopctl(LOOP_CTL_ADD, n)
    elif op == "remove":
        loopctl(LOOP_CTL_REMOVE, n)
    else:
        measure(n, sys.argv[3], sys.argv[4], int(sys.argv[5]))


if __name__ == "__main__":
    main()
