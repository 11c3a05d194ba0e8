#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Register-level test of the qrnic QEMU device, no guest needed.

Runs build/qemu/qemu-system-x86_64 with the qtest accelerator, plays the
part of the driver through qtest (PCI config cycles, MMIO, guest RAM),
and talks to the device's network backend over two UDP sockets
(-netdev dgram).  MSI-X vectors are pointed at guest RAM, so an
interrupt shows up as a memory write the test can read.

Prints one "ok - qemu: NAME" / "not ok - qemu: NAME" line per check and
exits non-zero on any failure.
"""
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
QEMU = os.path.join(TOP, 'build', 'qemu', 'qemu-system-x86_64')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_icrc  # noqa: E402

MAC = bytes.fromhex('525400123456')
BAR0, BAR2, BAR4 = 0xe0000000, 0xe0100000, 0xe1000000
DEVFN = 3 << 3
SQ, CQ, RESP, EQ = 0x100000, 0x101000, 0x102000, 0x103000
TXR, RXR, TXBUF, RXBUF = 0x104000, 0x105000, 0x110000, 0x120000
MSI = 0x300000          # vector n writes its data word at MSI + 4n

failures = 0


def check(cond, name):
    global failures
    print('%s - qemu: %s' % ('ok' if cond else 'not ok', name), flush=True)
    if not cond:
        failures += 1


class Qtest:
    def __init__(self, args):
        # stderr goes to a file: an undrained pipe would block QEMU.
        self.err = tempfile.TemporaryFile(mode='w+')
        self.p = subprocess.Popen(args + ['-qtest-log', '/dev/null'],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=self.err, text=True)

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def cmd(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()
        while True:
            r = self.p.stdout.readline()
            if not r:
                raise RuntimeError('qemu exited: ' + self.stderr())
            if r.startswith('OK') or r.startswith('FAIL') or r.startswith('ERR'):
                return r.split()

    def rd(self, size, addr):
        return int(self.cmd('read%s 0x%x' % (size, addr))[1], 16)

    def wr(self, size, addr, val):
        self.cmd('write%s 0x%x 0x%x' % (size, addr, val))

    def mem_write(self, addr, data):
        self.cmd('write 0x%x %d 0x%s' % (addr, len(data), data.hex()))

    def mem_read(self, addr, n):
        return bytes.fromhex(self.cmd('read 0x%x %d' % (addr, n))[1][2:])

    def cfg_rd(self, off):
        self.cmd('outl 0xcf8 0x%x' % (0x80000000 | DEVFN << 8 | (off & 0xfc)))
        v = int(self.cmd('inl 0xcfc')[1], 16)
        return v >> ((off & 3) * 8)

    def cfg_wr(self, off, val):
        self.cmd('outl 0xcf8 0x%x' % (0x80000000 | DEVFN << 8 | off))
        self.cmd('outl 0xcfc 0x%x' % val)

    def reg(self, off):
        return self.rd('l', BAR0 + off)

    def set_reg(self, off, val):
        self.wr('l', BAR0 + off, val)

    def quit(self):
        self.p.stdin.close()
        try:
            return self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return -1


def wait_for(fn, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.01)
    return fn()


def bad_property(prop, words):
    r = subprocess.run([QEMU, '-nodefaults', '-display', 'none', '-machine',
                        'q35', '-accel', 'qtest', '-device', 'qrnic,' + prop],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and all(w in r.stderr for w in words),
          'bad %s rejected with a clear error' % prop)


class Admin:
    """Driver side of the admin queue: 8 entries."""

    def __init__(self, q):
        self.q, self.pi, self.ci = q, 0, 0

    def run(self, opcode, args=b'', cookie=None):
        cookie = self.pi + 0x40 if cookie is None else cookie
        cmd = struct.pack('<BBHI', opcode, 0, cookie, 0) + args
        cmd += bytes(64 - len(cmd))
        self.q.mem_write(SQ + (self.pi % 8) * 64, cmd)
        self.pi += 1
        self.q.set_reg(0x74, self.pi)
        slot = CQ + (self.ci % 8) * 32
        phase = 0 if (self.ci // 8) & 1 else 1

        def done():
            cqe = self.q.mem_read(slot, 32)
            return cqe if struct.unpack_from('<I', cqe, 28)[0] & 1 == phase else None
        cqe = wait_for(done)
        if cqe is None:
            return None
        self.ci += 1
        self.q.set_reg(0x78, self.ci)
        ck, st, op, r0, r1 = struct.unpack_from('<HBBII', cqe)
        return (st, r0, r1) if ck == cookie and op == opcode else None


CEQ, CQB, QATTR, SRC, DST = 0x130000, 0x131000, 0x133000, 0x140000, 0x150000
ATTR_FMT = '<BBBBBBBBBBBBIIIIIHBB16s6sH68x'
GID = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 1])


def rdma_loopback(q, aq):
    """Two QPs of one device exchange RoCEv2 frames through its loopback:
    doorbells, the transport bottom half, DMA and CQEs in the real QEMU."""
    ok = aq.run(0x02, struct.pack('<QBBH', CEQ, 4, 0, 2))
    check(ok == (0, 1, 0), 'CREATE_EQ for completions -> eqn 1')
    pbl = struct.pack('<QIBBH', CQB, 1, 0, 12, 0)
    check(aq.run(0x0f, pbl + struct.pack('<IIB3x', 0, 1, 6)) == (0, 1, 0),
          'CREATE_CQ -> cqn 1')
    check(aq.run(0x08, struct.pack('<II', 0, 2) + GID) == (0, 0, 0), 'ADD_GID')
    st, pdn, _ = aq.run(0x0c, struct.pack('<I', 0))
    pbl = struct.pack('<QIBBH', 0, 0, 3, 0, 0)
    st2, key, _ = aq.run(0x11, pbl + struct.pack('<QQII', 0, 256 << 20, pdn, 0xf))
    check(st == 0 and st2 == 0 and key >> 8 == 1, 'kernel PD and a DMA-space MR')
    qpns = []
    for sq in (0, 8192):
        r = aq.run(0x13, struct.pack('<IIIIIIBBBBBBxx', pdn, 1, 1, 0, sq,
                                     sq + 4096, 2, 0, 3, 7, 3, 5))
        qpns.append(r[1] if r and r[0] == 0 else None)
    check(None not in qpns, 'CREATE_QP twice')

    def modify(qpn, mask, **kw):
        a = dict(state=0, mtu=3, timeout=14, retry=7, rnr=7, dest=0,
                 access=0xe, dgid=GID)
        a.update(kw)
        q.mem_write(QATTR, struct.pack(
            ATTR_FMT, a['state'], 0, a['mtu'], a['timeout'], a['retry'],
            a['rnr'], 1, 4, 4, 0, 64, 0, a['access'], a['dest'], 100, 100, 0,
            0, 1, 0, a['dgid'], MAC, 0))
        return aq.run(0x14, struct.pack('<IIQ', qpn, mask, QATTR))

    def connect(qpn, dest, **kw):
        return (modify(qpn, 0x39, state=1, **kw) == (0, 0, 0) and
                modify(qpn, 0x129181, state=2, dest=dest, **kw) == (0, 0, 0) and
                modify(qpn, 0x12e01, state=3, **kw) == (0, 0, 0))

    a, b = qpns
    check(connect(a, b) and connect(b, a), 'both QPs to RTS, each other as peer')
    src = bytes((i * 7 + 3) & 0xff for i in range(5000))
    q.mem_write(SRC, src)
    q.mem_write(BAR4 + 12288, struct.pack('<QB7x', 0x77, 1) +
                struct.pack('<QII', DST, 8192, key))
    q.wr('q', BAR2 + 0x8, b | 1 << 32)
    send = struct.pack('<QBBBBIIIQIIQQQ', 0x55, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0)
    read = struct.pack('<QBBBBIIIQIIQQQ', 0x56, 4, 1, 1, 0, 0, 0, 0, SRC, key,
                       0, 0, 0, 0)
    q.mem_write(BAR4, send + struct.pack('<QII', SRC, 3000, key))
    q.mem_write(BAR4 + 128, read + struct.pack('<QII', DST + 4096, 5000, key))
    q.wr('q', BAR2 + 0x0, a | 2 << 32)

    def cqes():
        out = []
        for i in range(64):
            c = q.mem_read(CQB + 32 * i, 32)
            if not struct.unpack_from('<I', c, 28)[0] & 1:
                break
            out.append(struct.unpack_from('<QIIIHBBB', c))
        return out
    got = wait_for(lambda: len(cqes()) >= 3 and cqes())
    ids = sorted((c[0], c[5], c[6], c[1]) for c in got or [])
    check(ids == [(0x55, 0, 0, 3000), (0x56, 2, 0, 5000), (0x77, 128, 0, 3000)],
          'SEND and READ between the QPs complete (got %s)' % ids)
    check(q.mem_read(DST, 3000) == src[:3000] and
          q.mem_read(DST + 4096, 5000) == src, 'SEND and READ data arrived')
    def stats():
        r = aq.run(0x17, struct.pack('<Q', RESP))
        tx, rx = struct.unpack_from('<QQ', q.mem_read(RESP, 16))
        # rx also counts the frame the demux check above sent in.
        return r == (0, 0, 0) and tx >= 5 and rx == tx + 1 and tx
    tx = wait_for(stats)
    check(tx, 'QUERY_STATS: every RoCE frame sent was received (%s)' % tx)
    q.mem_write(CQB + 64 * 32, struct.pack('<I', 3))    # consumer index

    # No peer: the retransmission timer (virtual clock) ends the WQE.
    r = aq.run(0x13, struct.pack('<IIIIIIBBBBBBxx', pdn, 1, 1, 0, 16384,
                                 20480, 2, 0, 3, 7, 3, 5))
    c = r[1] if r and r[0] == 0 else 0
    check(connect(c, 0x3ff, timeout=8, retry=2), 'a QP towards nobody')
    q.mem_write(BAR4 + 16384, send + struct.pack('<QII', SRC, 100, key))
    q.wr('q', BAR2 + 0x0, c | 1 << 32)
    time.sleep(0.2)
    check(len(cqes()) == 3, 'no completion before the timeout')
    for _ in range(4):
        q.cmd('clock_step %d' % (2 * 1000 * 1000))
    got = wait_for(lambda: len(cqes()) >= 4 and cqes())
    check(got and got[3][0] == 0x55 and got[3][6] == 12,
          'after 3 x 1 ms of virtual time: RETRY_EXC_ERR')


def main():
    if not os.access(QEMU, os.X_OK):
        print('not ok - qemu: %s missing (run qemu-device/build.sh)' % QEMU)
        return 1
    bad_property('db-pages=1', ['db-pages', '2..1024'])
    bad_property('db-pages=1025', ['db-pages', '2..1024'])
    bad_property('qmem-size=3M', ['qmem-size', 'power of two'])
    bad_property('qmem-size=512M', ['qmem-size', '256 MiB'])

    rx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # device TX
    rx_sock.bind(('127.0.0.1', 0))
    tx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # device RX
    tx_sock.bind(('127.0.0.1', 0))
    dev_port = tx_sock.getsockname()[1]
    tx_sock.close()
    mon = os.path.join(tempfile.mkdtemp(prefix='qrnic-'), 'mon.sock')
    q = Qtest([QEMU, '-nodefaults', '-display', 'none', '-machine', 'q35',
               '-accel', 'qtest', '-m', '256M', '-qtest', 'stdio',
               '-monitor', 'unix:%s,server=on,wait=off' % mon,
               '-netdev', 'dgram,id=n0,local.type=inet,local.host=127.0.0.1,'
               'local.port=%d,remote.type=inet,remote.host=127.0.0.1,'
               'remote.port=%d' % (dev_port, rx_sock.getsockname()[1]),
               '-device', 'qrnic,bus=pcie.0,addr=3,netdev=n0,mac=52:54:00:12:34:56'])
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    # ---- PCI function --------------------------------------------------
    check(q.cfg_rd(0) == 0x01301b36, 'vendor 1b36 device 0130')
    check(q.cfg_rd(0x2c) == 0x00011b36, 'subsystem 1b36:0001')
    check(q.cfg_rd(8) == 0x02000001, 'class 0200, revision 1')
    caps, ptr = {}, q.cfg_rd(0x34) & 0xff
    while ptr:
        v = q.cfg_rd(ptr)
        caps[v & 0xff] = ptr
        ptr = (v >> 8) & 0xff
    check(0x10 in caps and 0x11 in caps, 'PCIe and MSI-X capabilities')
    q.cfg_wr(0x10, 0xffffffff)
    check(q.cfg_rd(0x10) & 0xfffffff0 == 0xffffc000 and q.cfg_rd(0x10) & 6 == 4,
          'BAR0 is 16 KiB, 64-bit')
    q.cfg_wr(0x18, 0xffffffff)
    check(q.cfg_rd(0x18) & 0xfffffff0 == 0xfffc0000, 'BAR2 is 64 pages')
    q.cfg_wr(0x20, 0xffffffff)
    check(q.cfg_rd(0x20) & 0xfffffff0 == 0xff000000 and q.cfg_rd(0x20) & 0xe == 0xc,
          'BAR4 is 16 MiB, 64-bit prefetchable')
    for off, addr in ((0x10, BAR0), (0x18, BAR2), (0x20, BAR4)):
        q.cfg_wr(off, addr)
        q.cfg_wr(off + 4, 0)
    q.cfg_wr(4, 0x6)            # memory + bus master
    msix = caps[0x11]
    q.cfg_wr(msix, q.cfg_rd(msix) | 0x8000 << 16)
    for v in range(3):
        q.wr('l', BAR0 + 0x2000 + 16 * v, MSI + 4 * v)
        q.wr('l', BAR0 + 0x2000 + 16 * v + 4, 0)
        q.wr('l', BAR0 + 0x2000 + 16 * v + 8, 0xa0 + v)
        q.wr('l', BAR0 + 0x2000 + 16 * v + 12, 0)

    def msi(v):
        return struct.unpack('<I', q.mem_read(MSI + 4 * v, 4))[0]

    def msi_clear():
        q.mem_write(MSI, bytes(16))

    # ---- registers and handshake --------------------------------------
    check(q.reg(0x0) == 0x51524e49, 'ID reads QRNI')
    check(q.reg(0x4) == 0x10000, 'VERSION 1.0')
    check(q.reg(0x10) == 16 and q.reg(0x14) == 64 and q.reg(0x18) == 4096 and
          q.reg(0x1c) == 8, 'NUM_MSIX, DB_PAGES, QMEM_PAGES, AQ_MAX_LOG')
    check(q.reg(0x8) == 0xf, 'CAP0: Ethernet, RoCE v2, RC, atomics')
    check(q.reg(0x50) == 0x12005452 and
          q.reg(0x54) == 0x5634, 'MAC registers')
    q.set_reg(0x40, 1)
    check(q.reg(0x40) == 0 and q.reg(0x44) == 4, 'RESET self clears, STATUS = LINK_UP')
    q.set_reg(0x60, SQ)
    q.set_reg(0x68, CQ)
    q.set_reg(0x70, 9)
    q.set_reg(0x40, 2)
    check(q.reg(0x44) & 3 == 2 and q.reg(0x48) == 1, 'log depth 9 -> FATAL, AQ_DEPTH')
    q.set_reg(0x74, 1)
    check(q.reg(0x84) == 1, 'admin doorbell before READY counted')
    q.set_reg(0x40, 1)
    check(q.reg(0x44) == 4 and q.reg(0x84) == 0, 'RESET clears FATAL and stats')
    q.set_reg(0x60, SQ)
    q.set_reg(0x68, CQ)
    q.set_reg(0x70, 3)
    q.set_reg(0x40, 2)
    check(q.reg(0x44) == 5, 'ENABLE -> READY')

    # ---- admin commands ------------------------------------------------
    aq = Admin(q)
    msi_clear()
    r = aq.run(0x01, struct.pack('<Q', RESP))
    attr = q.mem_read(RESP, 144)
    check(r == (0, 0, 0) and struct.unpack_from('<I', attr, 8 + 8 + 11 * 4)[0] == 128,
          'QUERY_DEVICE ok, gid_tbl_len 128')
    check(wait_for(lambda: msi(0) == 0xa0), 'admin completion raised vector 0')
    check(aq.run(0x33) == (1, 0, 0), 'unknown opcode -> BAD_OPCODE')
    check(aq.run(0x01, struct.pack('<Q', 0xfffffffff000)) == (6, 0, 0),
          'QUERY_DEVICE to unbacked address -> DMA_ERROR')
    check(aq.run(0x02, struct.pack('<QBBH', EQ, 4, 1, 0)) == (0, 0, 0),
          'CREATE_EQ async -> eqn 0')
    check(aq.run(0x04, struct.pack('<QQBBHI', TXR, RXR, 4, 4, 1, 0)) == (0, 0, 0),
          'ETH_SETUP')
    check(aq.run(0x0a) == (0, 1, 1), 'ALLOC_UCTX -> context 1, page 1')
    check(aq.run(0x0c, struct.pack('<I', 1)) == (0, 1, 0), 'ALLOC_PD -> pdn 1')

    # ---- interrupt mask --------------------------------------------------
    q.set_reg(0x4c, 1)
    msi_clear()
    aq.run(0x07, struct.pack('<I', 1500))
    time.sleep(0.1)
    check(msi(0) == 0, 'masked vector does not fire')
    q.set_reg(0x4c, 0)
    check(wait_for(lambda: msi(0) == 0xa0), 'unmask fires the pending vector')

    # ---- Ethernet TX -----------------------------------------------------
    frame = bytes.fromhex('ffffffffffff') + MAC + b'\x08\x06' + bytes(range(46))
    q.mem_write(TXBUF, frame)
    q.mem_write(TXR, struct.pack('<QHHI', TXBUF, len(frame), 0, 0))
    q.wr('q', BAR2 + 0x20, 1)
    ready = select.select([rx_sock], [], [], 5)[0]
    got = rx_sock.recv(65536) if ready else b''
    check(got == frame, 'TX frame reaches the backend')
    check(wait_for(lambda: q.mem_read(TXR + 10, 2) == b'\x01\x00'), 'TX descriptor DONE')
    check(wait_for(lambda: msi(1) == 0xa1), 'TX raised vector 1')

    # ---- Ethernet RX -----------------------------------------------------
    msi_clear()
    q.mem_write(RXR, struct.pack('<QHHI', RXBUF, 2048, 0, 0))
    q.wr('q', BAR2 + 0x28, 1)
    inbound = MAC + bytes.fromhex('525400abcdef') + b'\x08\x00' + bytes(range(80))
    sender.sendto(inbound, ('127.0.0.1', dev_port))
    check(wait_for(lambda: q.mem_read(RXR + 8, 4) == struct.pack('<HH', len(inbound), 1)),
          'RX descriptor DONE with length')
    check(q.mem_read(RXBUF, len(inbound)) == inbound, 'RX frame in the buffer')
    check(wait_for(lambda: msi(1) == 0xa1), 'RX raised vector 1')

    # ---- RoCE demux ------------------------------------------------------
    roce = MAC + gen_icrc.FRAME_V4[6:]
    q.mem_write(RXR + 16, struct.pack('<QHHI', RXBUF + 0x1000, 2048, 0, 0))
    q.wr('q', BAR2 + 0x28, 2)
    sender.sendto(roce, ('127.0.0.1', dev_port))
    check(wait_for(lambda: q.reg(0x80) == 1), 'RoCE frame counted in STAT_RX_DROP')
    check(q.mem_read(RXR + 16 + 8, 4) == struct.pack('<HH', 2048, 0),
          'RoCE frame kept off the RX ring')

    # ---- doorbells -------------------------------------------------------
    bad = q.reg(0x84)
    q.wr('q', BAR2 + 5 * 4096 + 0x20, 1)
    q.wr('q', BAR2 + 1 * 4096 + 0x20, 1)
    q.wr('l', BAR2 + 0x20, 2)
    q.wr('q', BAR2 + 0x20, 100)
    q.wr('q', BAR2 + 0x00, 1 | 1 << 32)
    check(q.reg(0x84) == bad + 5, 'bad doorbells counted in STAT_BAD_DB')

    # ---- BAR4 queue memory -------------------------------------------------
    q.wr('q', BAR4 + 0x3ff8, 0x1122334455667788)
    check(q.rd('q', BAR4 + 0x3ff8) == 0x1122334455667788, 'BAR4 is memory')

    # ---- link ------------------------------------------------------------
    msi_clear()
    m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    m.connect(mon)
    m.sendall(b'set_link n0 off\n')
    check(wait_for(lambda: q.reg(0x44) & 4 == 0), 'set_link off clears LINK_UP')
    eqe = q.mem_read(EQ, 16)
    check(eqe[0] == 1 and struct.unpack_from('<III', eqe, 4) == (0, 0, 1),
          'LINK down EQE with phase 1')
    check(wait_for(lambda: msi(0) == 0xa0), 'link event raised vector 0')
    m.sendall(b'set_link n0 on\n')
    check(wait_for(lambda: q.reg(0x44) & 4 == 4), 'set_link on sets LINK_UP')
    check(wait_for(lambda: q.mem_read(EQ + 16, 8) == struct.pack('<BxxxI', 1, 1)),
          'LINK up EQE')

    rdma_loopback(q, aq)

    # ---- reset -----------------------------------------------------------
    q.set_reg(0x40, 1)
    check(q.reg(0x44) == 4 and q.reg(0x80) == 0, 'RESET drops READY and stats')
    check(q.rd('q', BAR4 + 0x3ff8) == 0, 'RESET clears queue memory')
    check(q.reg(0x60) == 0 and q.reg(0x70) == 0, 'RESET clears the admin registers')
    q.mem_write(CQ, bytes(256))
    q.set_reg(0x60, SQ)
    q.set_reg(0x68, CQ)
    q.set_reg(0x70, 3)
    q.set_reg(0x40, 2)
    aq = Admin(q)
    r = aq.run(0x0e, struct.pack('<Q', RESP))
    check(r == (0, 0, 0) and q.mem_read(RESP, 16) == bytes(16),
          'after RESET no objects remain')
    m.sendall(b'quit\n')
    rc = q.quit()
    m.close()
    check(rc == 0, 'QEMU exits cleanly')
    if rc != 0:
        print(q.stderr())
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
