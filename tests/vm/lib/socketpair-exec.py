#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""socketpair-exec CMD [ARG...]: run CMD with both ends of a new Unix
datagram socket pair open, their descriptor numbers in QRNIC_LINK_FDS
("A B").  run-vms hands one end to each guest's dgram netdev (its
unixdgram link): connected sockets need no path and no listener, carry
one frame per datagram, and lose nothing: a full peer makes send() fail
with EAGAIN, and QEMU waits until the socket is writable again."""
import os
import socket
import sys

if len(sys.argv) < 2:
    sys.exit("usage: socketpair-exec CMD [ARG...]")
ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
for end in ends:
    os.set_inheritable(end.fileno(), True)
os.environ["QRNIC_LINK_FDS"] = " ".join(str(end.fileno()) for end in ends)
os.execvp(sys.argv[1], sys.argv[1:])
