#!/usr/bin/python3
"""A tiny Ethernet hub for QEMU -netdev dgram guests, on 127.0.0.1 only.

usage: udp-hub.py HUB_PORT GUEST_PORT...

Every guest's netdev sends its frames to HUB_PORT from its own GUEST_PORT;
the hub forwards each datagram unchanged to every other guest port.  Used by
tests/vm/run-vms for three guests (a dgram netdev has a single remote).
"""
import signal
import socket
import sys


def main():
    hub = int(sys.argv[1])
    guests = [int(p) for p in sys.argv[2:]]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.bind(("127.0.0.1", hub))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        data, (host, port) = s.recvfrom(65536)
        if host != "127.0.0.1" or port not in guests:
            continue
        for g in guests:
            if g != port:
                try:
                    s.sendto(data, ("127.0.0.1", g))
                except OSError:
                    pass  # that guest is not up (yet, or any more)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
