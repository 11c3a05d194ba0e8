#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What only the real QEMU can show about -device qrnic; no guest needed.

The register file, admin commands, rings, doorbells and the RC transport
are tested in C, against the engine on a QEMU-like fake platform
(tests/unit/test_*.c on tests/fake/qfake.c).  This test runs
build/qemu/qemu-system-x86_64 with the qtest accelerator, plays the driver
through qtest (PCI config cycles, MMIO, guest RAM) and checks the QEMU glue
around the engine: property validation, PCI config space (IDs, class, BAR
sizes and types, MSI-X and PCIe capabilities), BAR mapping, an MSI-X
message actually written, the enable handshake through BAR0 (QEMU splitting
an 8-byte access), a BAR2 doorbell sending a frame to the netdev backend and
a frame coming back (two UDP sockets, -netdev dgram), set_link and
system_reset from the monitor, and RDMA between two QPs of the device
through QEMU's bottom half, DMA and virtual-clock timer.

Register offsets, opcodes and other constants are read from
include/qrnic_hw.h at run time.  MSI-X vectors point at guest RAM, so an
interrupt shows up as a memory write the test can read.

Prints one "ok - qemu X.Y.Z: NAME" / "not ok - qemu X.Y.Z: NAME" line per
check (X.Y.Z: the binary's version) and exits non-zero on any failure.
Another QEMU binary (another QEMU version built by qemu-device/build.sh
VERSION, e.g. build/compat/qemu-10.2/qemu-system-x86_64) is given as the
argument or in QRNIC_QEMU; the first line, a comment, names the binary and
its version.
"""
import os
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time
import types

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
QEMU = (sys.argv[1] if len(sys.argv) > 1 else None) or \
    os.environ.get('QRNIC_QEMU') or \
    os.path.join(TOP, 'build', 'qemu', 'qemu-system-x86_64')
HW_H = os.path.join(TOP, 'include', 'qrnic_hw.h')


def load_hw(path):
    """The header's integer #defines and enum constants, QRNIC_ dropped:
    hw.REG_CTRL, hw.CMD_QUERY_DEVICE, hw.DB_ETH_TX, ...  Function-like
    macros in an enum's body are expanded: enum qrnic_cmd_opcode is
    QRNIC_CMD_LIST(QRNIC_CMD_ENUM)."""
    text = re.sub(r'/\*.*?\*/', ' ', open(path).read(), flags=re.S)
    text = re.sub(r'\\\n', ' ', text)
    vals = {}
    macros = {}
    for m in re.finditer(r'^#define[ \t]+(\w+)\(([^)]*)\)[ \t]*(.*)$', text,
                         re.M):
        macros[m.group(1)] = ([p.strip() for p in m.group(2).split(',')],
                              m.group(3))

    def call_args(s, i):
        """The arguments of the call whose '(' is s[i - 1], and the index
        after its ')'."""
        args, depth, start = [], 0, i
        while True:
            c = s[i]
            if c == '"':                    # a string's commas are its own
                i = s.index('"', i + 1)
            elif c == '(':
                depth += 1
            elif c == ')' and depth:
                depth -= 1
            elif c in ',)' and not depth:
                args.append(s[start:i].strip())
                start = i + 1
                if c == ')':
                    return args, i + 1
            i += 1

    def expand(s, depth=0):
        if depth > 8:
            raise ValueError('macros nested too deep: ' + s[:60])
        out, i = '', 0
        for m in re.finditer(r'\b(\w+)\s*\(', s):
            if m.start() < i or m.group(1) not in macros:
                continue
            params, body = macros[m.group(1)]
            args, end = call_args(s, m.end())
            if params[-1] == '...':
                args[len(params) - 1:] = [', '.join(args[len(params) - 1:])]
                params = params[:-1] + ['__VA_ARGS__']
            if len(args) != len(params):
                raise ValueError('%s: %d arguments' % (m.group(1),
                                                       len(args)))
            sub = dict(zip(params, args))
            body = re.sub(r'\b\w+\b',
                          lambda t: sub.get(t.group(0), t.group(0)), body)
            out += s[i:m.start()] + expand(re.sub(r'\s*##\s*', '', body),
                                           depth + 1)
            i = end
        return out + s[i:]

    def ev(expr):
        expr = expr.strip()
        expr = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b', r'\1', expr)
        expr = re.sub(r'\b[A-Za-z_]\w*\b', lambda m: str(vals[m.group(0)]),
                      expr)
        if not re.fullmatch(r'[0-9a-fA-FxX()<>|&~+\-* ]+', expr):
            raise ValueError(expr)
        return int(eval(expr, {'__builtins__': {}}))

    for m in re.finditer(r'^#define[ \t]+(\w+)[ \t]+([^\n]+)$|'
                         r'\benum\s+\w+\s*\{(.*?)\}', text, re.M | re.S):
        if m.group(1):
            try:
                vals[m.group(1)] = ev(m.group(2))
            except (KeyError, ValueError, SyntaxError):
                pass                # macros with arguments, types, ...
            continue
        nxt = 0
        for item in expand(m.group(3)).split(','):
            name, _, expr = item.partition('=')
            if name.strip():
                nxt = ev(expr) if expr.strip() else nxt
                vals[name.strip()] = nxt
                nxt += 1
    return types.SimpleNamespace(**{k[6:]: v for k, v in vals.items()
                                    if k.startswith('QRNIC_')})


hw = load_hw(HW_H)

# PCI configuration space (PCI spec, not qrnic's layout).
PCI_VENDOR_ID, PCI_COMMAND, PCI_CLASS_REVISION = 0x00, 0x04, 0x08
PCI_BAR0, PCI_SUBSYSTEM, PCI_CAP_PTR, PCI_INT_PIN = 0x10, 0x2c, 0x34, 0x3d
PCI_CMD_MEM_BUS_MASTER = 0x6
PCI_CAP_EXP, PCI_CAP_MSIX = 0x10, 0x11
MSIX_ENABLE = 0x8000            # message control
PCIE_TYPE_ENDPOINTS = (0x0, 0x9)    # endpoint, root complex integrated
MSIX_ENTRY = 16

DB_PAGES, QMEM = 32, 8 << 20    # non-default properties, so they show
CTX_MAX_QPS, CTX_MAX_QMEM = 5, 1 << 20
MAX_QPS, MAX_PDS = 5000, 2048
MAC = bytes.fromhex('525400123456')
BAR0, BAR2, BAR4 = 0xe0000000, 0xe0100000, 0xe1000000
DEVFN = 3 << 3
AQ_LOG = 3
SQ, CQ, RESP, EQ = 0x100000, 0x101000, 0x102000, 0x103000
TXR, RXR, TXBUF, RXBUF = 0x104000, 0x105000, 0x110000, 0x120000
MSI = 0x300000          # vector n writes 0xa0 + n at MSI + 4n

failures = 0
LABEL = 'qemu'          # 'qemu 10.2.2' once the binary said its version


def check(cond, name):
    global failures
    print('%s - %s: %s' % ('ok' if cond else 'not ok', LABEL, name),
          flush=True)
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
                raise RuntimeError('qemu exited (%s): %s' %
                                   (self.p.poll(), self.stderr()))
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


def hmp(m, cmd, timeout=5.0):
    """Send a monitor command and wait for its prompt: the command has then
    taken effect.  Returns what the monitor printed, None on a timeout."""
    m.setblocking(False)
    try:
        while m.recv(4096):
            pass                        # the banner, earlier commands' echo
    except BlockingIOError:
        pass
    m.setblocking(True)
    m.sendall(cmd + b'\n')
    out, end = b'', time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([m], [], [], max(0.0, end - time.time()))
        if not r:
            break
        chunk = m.recv(4096)
        if not chunk:
            break
        out += chunk
        if b'\n' in out and out.endswith(b'(qemu) '):
            return out
    return None


def monitor_said(reply):
    """What the monitor printed after echoing the command line."""
    return (reply or b'').split(b'\x1b[K')[-1].decode(errors='replace')


def run_time_props(m):
    """Out-of-range values set at run time are refused, the old kept."""
    dev = b'/machine/peripheral/nic0 '
    for prop, bad, good, words in (('x-db-work', 17, 4, ['0..16']),
                                   ('window-kib', 8, 256, ['16..4096']),
                                   ('x-window-pkts', 1025, 256,
                                    ['2..1024'])):
        name = prop.encode()
        said = monitor_said(hmp(m, b'qom-set ' + dev + name + b' %d' % bad))
        kept = monitor_said(hmp(m, b'qom-get ' + dev + name)).split()
        check(prop in said and all(w in said for w in words) and
              kept[:1] == [str(good)],
              'qom-set %s %d at run time: refused (%r), still %s' %
              (prop, bad, said.strip().splitlines()[0] if said.strip()
               else '', kept[:1]))


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def rss_of_defaults():
    """What the device with its defaults costs in host memory, unused."""
    rss = []
    for dev in ([], ['-device', 'qrnic']):
        q = Qtest([QEMU, '-nodefaults', '-display', 'none', '-machine', 'q35',
                   '-accel', 'qtest', '-m', '256M', '-qtest', 'stdio'] + dev)
        q.cmd('clock_step 1000')
        rss.append(rss_kib(q.p.pid))
        q.quit()
    check(0 < rss[1] - rss[0] <= 8 * 1024,
          'the device with its defaults (%d MiB of queue memory, 65536 QPs) '
          'costs %d KiB of host memory, at most 8 MiB'
          % (256, rss[1] - rss[0]))


def bad_property(prop, words):
    r = subprocess.run([QEMU, '-nodefaults', '-display', 'none', '-machine',
                        'q35', '-accel', 'qtest', '-device', 'qrnic,' + prop],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and all(w in r.stderr for w in words),
          'bad %s rejected with a clear error' % prop)


class Admin:
    """Driver side of the admin queue: 1 << AQ_LOG entries."""

    def __init__(self, q):
        self.q, self.pi, self.ci = q, 0, 0

    def run(self, opcode, args=b'', cookie=None):
        depth = 1 << AQ_LOG
        cookie = self.pi + 0x40 if cookie is None else cookie
        cmd = struct.pack('<BBHI', opcode, 0, cookie, 0) + args
        cmd += bytes(hw.CMD_SIZE - len(cmd))
        self.q.mem_write(SQ + (self.pi % depth) * hw.CMD_SIZE, cmd)
        self.pi += 1
        self.q.set_reg(hw.REG_AQ_DB, self.pi)
        slot = CQ + (self.ci % depth) * hw.ACQE_SIZE
        phase = 0 if (self.ci // depth) & 1 else hw.ADMIN_CQE_PHASE

        def done():
            cqe = self.q.mem_read(slot, hw.ACQE_SIZE)
            flags = struct.unpack_from('<I', cqe, hw.ACQE_SIZE - 4)[0]
            return cqe if flags & hw.ADMIN_CQE_PHASE == phase else None
        cqe = wait_for(done)
        if cqe is None:
            return None
        self.ci += 1
        self.q.set_reg(hw.REG_AQ_CQ_CI, self.ci)
        ck, st, op, r0, r1 = struct.unpack_from('<HBBII', cqe)
        return (st, r0, r1) if ck == cookie and op == opcode else None


def pci(q):
    """Config space, BAR sizes and mapping, MSI-X table pointed at RAM."""
    check(q.cfg_rd(PCI_VENDOR_ID) ==
          hw.PCI_DEVICE_ID << 16 | hw.PCI_VENDOR_ID,
          'vendor %04x device %04x' % (hw.PCI_VENDOR_ID, hw.PCI_DEVICE_ID))
    check(q.cfg_rd(PCI_SUBSYSTEM) ==
          hw.PCI_SUBSYS_ID << 16 | hw.PCI_SUBSYS_VENDOR_ID,
          'subsystem %04x:%04x' % (hw.PCI_SUBSYS_VENDOR_ID, hw.PCI_SUBSYS_ID))
    check(q.cfg_rd(PCI_CLASS_REVISION) ==
          hw.PCI_CLASS << 16 | hw.PCI_REVISION,
          'class %04x, revision %d' % (hw.PCI_CLASS, hw.PCI_REVISION))
    check(q.cfg_rd(PCI_INT_PIN) & 0xff == 0, 'no INTx pin: MSI-X only')
    caps, ptr = {}, q.cfg_rd(PCI_CAP_PTR) & 0xff
    while ptr:
        v = q.cfg_rd(ptr)
        caps[v & 0xff] = ptr
        ptr = (v >> 8) & 0xff
    check(PCI_CAP_EXP in caps and PCI_CAP_MSIX in caps,
          'PCIe and MSI-X capabilities')
    exp = caps.get(PCI_CAP_EXP, 0)
    check(exp and (q.cfg_rd(exp + 2) >> 4) & 0xf in PCIE_TYPE_ENDPOINTS,
          'PCIe capability: an endpoint')
    msix = caps.get(PCI_CAP_MSIX, 0)
    check(msix and (q.cfg_rd(msix + 2) & 0x7ff) + 1 == hw.NUM_MSIX and
          q.cfg_rd(msix + 4) == hw.MSIX_TABLE_OFF | hw.BAR_REGS and
          q.cfg_rd(msix + 8) == hw.MSIX_PBA_OFF | hw.BAR_REGS,
          'MSI-X: %d vectors, table and PBA in BAR%d' %
          (hw.NUM_MSIX, hw.BAR_REGS))

    def bar(n):
        off = PCI_BAR0 + 4 * n
        q.cfg_wr(off, 0xffffffff)
        q.cfg_wr(off + 4, 0xffffffff)
        v = q.cfg_rd(off) | q.cfg_rd(off + 4) << 32
        return (~(v & ~0xf) & (2 ** 64 - 1)) + 1, v & 0xf
    size, flags = bar(hw.BAR_REGS)
    check(size == hw.BAR0_SIZE and flags & 6 == 4,
          'BAR%d is %d KiB, 64-bit' % (hw.BAR_REGS, hw.BAR0_SIZE >> 10))
    size, flags = bar(hw.BAR_DB)
    check(size == DB_PAGES * hw.DB_PAGE_SIZE and flags & 6 == 4,
          'BAR%d is db-pages=%d pages, 64-bit' % (hw.BAR_DB, DB_PAGES))
    size, flags = bar(hw.BAR_QMEM)
    check(size == QMEM and flags & 0xe == 0xc,
          'BAR%d is qmem-size=%d MiB, 64-bit prefetchable' %
          (hw.BAR_QMEM, QMEM >> 20))
    map_bars(q)
    check(q.reg(hw.REG_ID) == hw.ID_MAGIC, 'BAR0 mapped: ID reads QRNI')
    check(q.reg(hw.REG_DB_PAGES) == DB_PAGES and
          q.reg(hw.REG_QMEM_PAGES) == QMEM // hw.QMEM_PAGE_SIZE,
          'DB_PAGES and QMEM_PAGES follow the properties')
    q.wr('q', BAR4 + QMEM - 8, 0x1122334455667788)
    check(q.rd('q', BAR4 + QMEM - 8) == 0x1122334455667788,
          'BAR4 mapped: queue memory is RAM')


def map_bars(q):
    for n, addr in ((hw.BAR_REGS, BAR0), (hw.BAR_DB, BAR2),
                    (hw.BAR_QMEM, BAR4)):
        q.cfg_wr(PCI_BAR0 + 4 * n, addr)
        q.cfg_wr(PCI_BAR0 + 4 * n + 4, 0)
    q.cfg_wr(PCI_COMMAND, PCI_CMD_MEM_BUS_MASTER)


def msix_setup(q, nvec):
    msix, ptr = None, q.cfg_rd(PCI_CAP_PTR) & 0xff
    while ptr:
        v = q.cfg_rd(ptr)
        msix = ptr if v & 0xff == PCI_CAP_MSIX else msix
        ptr = (v >> 8) & 0xff
    q.cfg_wr(msix, q.cfg_rd(msix) | MSIX_ENABLE << 16)
    for v in range(nvec):
        e = BAR0 + hw.MSIX_TABLE_OFF + MSIX_ENTRY * v
        q.wr('l', e, MSI + 4 * v)
        q.wr('l', e + 4, 0)
        q.wr('l', e + 8, 0xa0 + v)
        q.wr('l', e + 12, 0)        # unmasked


def enable(q):
    q.mem_write(CQ, bytes(hw.ACQE_SIZE << AQ_LOG))
    q.wr('q', BAR0 + hw.REG_AQ_SQ_BASE_LO, SQ)
    q.wr('q', BAR0 + hw.REG_AQ_CQ_BASE_LO, CQ)
    q.set_reg(hw.REG_AQ_LOG_DEPTH, AQ_LOG)
    q.set_reg(hw.REG_CTRL, hw.CTRL_ENABLE)


CEQ, CQB, QATTR, SRC, DST = 0x130000, 0x131000, 0x133000, 0x140000, 0x150000
ATTR_FMT = '<BBBBBBBBBBBBIIIIIHBB16s6sH68x'     # struct qrnic_qp_attr
WQE_FMT = '<QBBBBIIIQIIQQQ'                     # struct qrnic_sq_wqe
SGE_FMT = '<QII'                                # struct qrnic_sge
CQE_FMT = '<QIIIHBBB'                           # struct qrnic_cqe
GID = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 1])


def rdma_loopback(q, aq, m):
    """Two QPs of one device exchange RoCEv2 frames through its loopback:
    BAR2 queue doorbells, WQEs in BAR4, the transport in QEMU's bottom
    half, DMA, CQEs; then the retransmission timer on QEMU's clock, with
    x-drop-ppm set at run time from the monitor."""
    ok = aq.run(hw.CMD_CREATE_EQ, struct.pack('<QBBH', CEQ, 4, 0, 2))
    check(ok == (hw.ST_OK, 1, 0), 'CREATE_EQ for completions -> eqn 1')
    pbl = struct.pack('<QIBBH', CQB, 1, hw.PBL_CONTIG, 12, 0)
    check(aq.run(hw.CMD_CREATE_CQ, pbl + struct.pack('<IIB3x', 0, 1, 6)) ==
          (hw.ST_OK, 1, 0), 'CREATE_CQ -> cqn 1')
    check(aq.run(hw.CMD_ADD_GID, struct.pack('<II', 0, hw.GID_TYPE_ROCE_V2) +
                 GID) == (hw.ST_OK, 0, 0), 'ADD_GID')
    st, pdn, _ = aq.run(hw.CMD_ALLOC_PD, struct.pack('<I', 0))
    pbl = struct.pack('<QIBBH', 0, 0, hw.PBL_PHYS, 0, 0)
    st2, key, _ = aq.run(hw.CMD_REG_MR, pbl + struct.pack(
        '<QQII', 0, 256 << 20, pdn, hw.ACCESS_ALL))
    check(st == hw.ST_OK and st2 == hw.ST_OK and key >> 8 == 1,
          'kernel PD and a DMA-space MR')

    def create_qp(sq):
        # send and recv CQ 1, kernel, RC, 8 x 128 B SQ, 8 x 32 B RQ
        r = aq.run(hw.CMD_CREATE_QP, struct.pack(
            '<IIIIIIBBBBBBxx', pdn, 1, 1, 0, sq, sq + 4096, hw.QPT_RC, 0,
            3, 7, 3, 5))
        return r[1] if r and r[0] == hw.ST_OK else None
    qpns = [create_qp(0), create_qp(8192)]
    check(None not in qpns, 'CREATE_QP twice')

    def modify(qpn, mask, **kw):
        a = dict(state=0, mtu=3, timeout=14, retry=7, rnr=7, dest=0,
                 access=hw.ACCESS_ALL & ~hw.ACCESS_LOCAL_WRITE, dgid=GID)
        a.update(kw)
        q.mem_write(QATTR, struct.pack(
            ATTR_FMT, a['state'], 0, a['mtu'], a['timeout'], a['retry'],
            a['rnr'], 1, 4, 4, 0, 64, 0, a['access'], a['dest'], 100, 100, 0,
            0, 1, 0, a['dgid'], MAC, 0))    # to our own MAC: loopback
        return aq.run(hw.CMD_MODIFY_QP, struct.pack('<IIQ', qpn, mask, QATTR))

    to_init = (hw.QP_ATTR_STATE | hw.QP_ATTR_ACCESS_FLAGS |
               hw.QP_ATTR_PKEY_INDEX | hw.QP_ATTR_PORT)
    to_rtr = (hw.QP_ATTR_STATE | hw.QP_ATTR_AV | hw.QP_ATTR_PATH_MTU |
              hw.QP_ATTR_DEST_QPN | hw.QP_ATTR_RQ_PSN |
              hw.QP_ATTR_MAX_DEST_RD_ATOMIC | hw.QP_ATTR_MIN_RNR_TIMER)
    to_rts = (hw.QP_ATTR_STATE | hw.QP_ATTR_TIMEOUT | hw.QP_ATTR_RETRY_CNT |
              hw.QP_ATTR_RNR_RETRY | hw.QP_ATTR_SQ_PSN |
              hw.QP_ATTR_MAX_QP_RD_ATOMIC)

    def connect(qpn, dest, **kw):
        ok = (hw.ST_OK, 0, 0)
        return (modify(qpn, to_init, state=hw.QPS_INIT, **kw) == ok and
                modify(qpn, to_rtr, state=hw.QPS_RTR, dest=dest, **kw) == ok and
                modify(qpn, to_rts, state=hw.QPS_RTS, **kw) == ok)

    a, b = qpns
    check(connect(a, b) and connect(b, a), 'both QPs to RTS, each other as peer')
    src = bytes((i * 7 + 3) & 0xff for i in range(5000))
    q.mem_write(SRC, src)
    q.mem_write(BAR4 + 12288, struct.pack('<QB7x', 0x77, 1) +
                struct.pack(SGE_FMT, DST, 8192, key))
    q.wr('q', BAR2 + hw.DB_RQ, b | 1 << 32)
    send = struct.pack(WQE_FMT, 0x55, hw.WR_SEND, hw.WQE_F_SIGNALED, 1, 0,
                       0, 0, 0, 0, 0, 0, 0, 0, 0)
    read = struct.pack(WQE_FMT, 0x56, hw.WR_RDMA_READ, hw.WQE_F_SIGNALED, 1,
                       0, 0, 0, 0, SRC, key, 0, 0, 0, 0)
    q.mem_write(BAR4, send + struct.pack(SGE_FMT, SRC, 3000, key))
    q.mem_write(BAR4 + 128, read + struct.pack(SGE_FMT, DST + 4096, 5000, key))
    q.wr('q', BAR2 + hw.DB_SQ, a | 2 << 32)

    def cqes():
        out = []
        for i in range(64):
            c = q.mem_read(CQB + hw.CQE_SIZE * i, hw.CQE_SIZE)
            if not struct.unpack_from('<I', c, 28)[0] & hw.CQE_PHASE:
                break
            out.append(struct.unpack_from(CQE_FMT, c))
        return out
    got = wait_for(lambda: len(cqes()) >= 3 and cqes())
    ids = sorted((c[0], c[5], c[6], c[1]) for c in got or [])
    check(ids == [(0x55, hw.CQE_OP_SEND, hw.WC_SUCCESS, 3000),
                  (0x56, hw.CQE_OP_RDMA_READ, hw.WC_SUCCESS, 5000),
                  (0x77, hw.CQE_OP_RECV, hw.WC_SUCCESS, 3000)],
          'SEND and READ between the QPs complete (got %s)' % ids)
    check(q.mem_read(DST, 3000) == src[:3000] and
          q.mem_read(DST + 4096, 5000) == src, 'SEND and READ data arrived')

    def counters():
        r = aq.run(hw.CMD_QUERY_STATS, struct.pack('<Q', RESP))
        v = struct.unpack('<%dQ' % hw.STAT_COUNT,
                          q.mem_read(RESP, 8 * hw.STAT_COUNT))
        return v if r == (0, 0, 0) else None

    def stats():
        v = counters()
        tx, rx = v[hw.STAT_TX_ROCE_PKTS], v[hw.STAT_RX_ROCE_PKTS]
        return tx >= 5 and rx == tx and tx
    tx = wait_for(stats)
    check(tx, 'QUERY_STATS: every RoCE frame sent was received (%s)' % tx)
    # The CQ's consumer index, in the record after the ring.
    q.mem_write(CQB + (hw.CQE_SIZE << 6), struct.pack('<I', 3))

    # No peer, and all it loops back lost: the retransmission timer
    # (virtual clock) ends the WQE.
    reply = hmp(m, b'qom-set /machine/peripheral/nic0 x-drop-ppm 1000000')
    said = monitor_said(reply).strip()
    check(reply is not None and said == '(qemu)',
          'qom-set x-drop-ppm 1000000 done, the monitor said nothing else '
          '(%r)' % (said if reply is not None else 'no prompt'))
    c = create_qp(16384)
    check(c is not None and connect(c, 0x3ff, timeout=8, retry=2),
          'a QP towards nobody')
    q.mem_write(BAR4 + 16384, send + struct.pack(SGE_FMT, SRC, 100, key))
    q.wr('q', BAR2 + hw.DB_SQ, (c or 0) | 1 << 32)
    time.sleep(0.2)
    check(len(cqes()) == 3, 'no completion before the timeout')
    for _ in range(4):
        q.cmd('clock_step %d' % (2 * 1000 * 1000))
    got = wait_for(lambda: len(cqes()) >= 4 and cqes())
    check(got and got[3][0] == 0x55 and got[3][6] == hw.WC_RETRY_EXC_ERR,
          'after 3 x 1 ms of virtual time: RETRY_EXC_ERR')
    # The last frame sent may still wait in the device's loopback queue
    # when the error completion is seen: it is dropped a moment later.
    def dropped_all():
        v = counters()
        return v if (v and v[hw.STAT_FAULT_DROP_RX] ==
                     v[hw.STAT_TX_ROCE_PKTS] - tx >= 2) else None
    v = wait_for(dropped_all) or counters()
    check(v and v[hw.STAT_FAULT_DROP_RX] == v[hw.STAT_TX_ROCE_PKTS] - tx >= 2
          and v[hw.STAT_RX_ROCE_PKTS] == tx,
          'x-drop-ppm=1000000 set from the monitor at run time: every frame '
          'looped back after it dropped and counted (fault_drop_rx %s of %s)'
          % (v and v[hw.STAT_FAULT_DROP_RX],
             v and v[hw.STAT_TX_ROCE_PKTS] - tx))


def cmd_list_loaded():
    """Every row of the header's QRNIC_CMD_LIST, read with a regex of its
    own, is a hw.CMD_* with the row's opcode; opcodes 1..CMD_MAX - 1."""
    text = open(HW_H).read()
    m = re.search(r'^#define QRNIC_CMD_LIST\(X\)((?:.*\\\n)*.*)$', text, re.M)
    rows = re.findall(r'\bX\((\w+),\s*(\w+),', m.group(1)) if m else []
    check(rows and
          all(getattr(hw, 'CMD_' + n, None) == int(v, 0) for n, v in rows) and
          sorted(int(v, 0) for _, v in rows) ==
          list(range(1, getattr(hw, 'CMD_MAX', 0))),
          'load_hw() expands QRNIC_CMD_LIST: its %d commands, opcodes '
          '1..CMD_MAX - 1' % len(rows))


def main():
    if not os.access(QEMU, os.X_OK):
        print('not ok - qemu: %s missing (run qemu-device/build.sh)' % QEMU)
        return 1
    ver = subprocess.run([QEMU, '-version'], capture_output=True, text=True,
                         timeout=60).stdout.splitlines()
    print('# %s: %s' % (QEMU, ver[0] if ver else 'no version'), flush=True)
    m = re.search(r'version (\d+\.\d+\.\d+)', ver[0] if ver else '')
    global LABEL
    if m:
        LABEL = 'qemu ' + m.group(1)
    cmd_list_loaded()
    bad_property('db-pages=1', ['db-pages', '2..1024'])
    bad_property('db-pages=1025', ['db-pages', '2..1024'])
    bad_property('db-pages=3', ['db-pages', 'power of two'])
    bad_property('qmem-size=3M', ['qmem-size', 'power of two'])
    bad_property('qmem-size=4G', ['qmem-size', '2 GiB'])
    bad_property('max-qps=0', ['max-qps', '1..1048576'])
    bad_property('max-keys=1048577', ['max-keys', '1..1048576'])
    bad_property('max-mr-pages=0', ['max-mr-pages', '1..268435456'])
    rss_of_defaults()
    bad_property('x-drop-ppm=1000001', ['x-drop-ppm', '1000000'])
    bad_property('x-db-work=17', ['x-db-work', '0..16'])
    bad_property('window-kib=0', ['window-kib', '16..4096'])
    bad_property('window-kib=4097', ['window-kib', '16..4096'])
    bad_property('x-window-pkts=1', ['x-window-pkts', '2..1024'])
    bad_property('x-window-pkts=1025', ['x-window-pkts', '2..1024'])
    bad_property('qmem-size=1M,ctx-max-qmem=2M', ['ctx-max-qmem',
                                                  'qmem-size'])

    rx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # device TX
    rx_sock.bind(('127.0.0.1', 0))
    tx_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # device RX
    tx_sock.bind(('127.0.0.1', 0))
    dev_port = tx_sock.getsockname()[1]
    tx_sock.close()
    mon = os.path.join(tempfile.mkdtemp(prefix='qrnic-'), 'mon.sock')
    log = os.path.join(os.path.dirname(mon), 'qemu.log')
    q = Qtest([QEMU, '-nodefaults', '-display', 'none', '-machine', 'q35',
               '-accel', 'qtest', '-m', '256M', '-qtest', 'stdio',
               '-d', 'guest_errors', '-D', log,
               '-monitor', 'unix:%s,server=on,wait=off' % mon,
               '-netdev', 'dgram,id=n0,local.type=inet,local.host=127.0.0.1,'
               'local.port=%d,remote.type=inet,remote.host=127.0.0.1,'
               'remote.port=%d' % (dev_port, rx_sock.getsockname()[1]),
               '-device', 'qrnic,id=nic0,bus=pcie.0,addr=3,netdev=n0,'
               'mac=52:54:00:12:34:56,db-pages=%d,qmem-size=%d,'
               'ctx-max-qps=%d,ctx-max-qmem=%d,max-qps=%d,max-pds=%d' %
               (DB_PAGES, QMEM, CTX_MAX_QPS, CTX_MAX_QMEM, MAX_QPS, MAX_PDS)])
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def msi(v):
        return struct.unpack('<I', q.mem_read(MSI + 4 * v, 4))[0]

    def msi_clear():
        q.mem_write(MSI, bytes(16))

    pci(q)
    msix_setup(q, 2)
    m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    m.connect(mon)

    # ---- the enable handshake through QEMU's memory core ------------------
    q.wr('q', BAR0 + hw.REG_AQ_SQ_BASE_LO, 0x123456780)
    check(q.reg(hw.REG_AQ_SQ_BASE_LO) == 0x23456780 and
          q.reg(hw.REG_AQ_SQ_BASE_HI) == 1 and
          q.rd('q', BAR0 + hw.REG_AQ_SQ_BASE_LO) == 0x123456780,
          '8-byte BAR0 accesses reach the engine as two 4-byte ones')
    enable(q)
    check(q.reg(hw.REG_STATUS) == hw.STATUS_READY | hw.STATUS_LINK_UP,
          'ENABLE -> STATUS READY | LINK_UP')

    # ---- an admin command: bottom half, DMA, MSI-X -----------------------
    aq = Admin(q)
    msi_clear()
    r = aq.run(hw.CMD_QUERY_DEVICE, struct.pack('<Q', RESP))
    attr = q.mem_read(RESP, hw.DEV_ATTR_SIZE)
    gid_tbl_len = struct.unpack_from('<I', attr, 60)[0]
    check(r == (hw.ST_OK, 0, 0) and gid_tbl_len == 128,
          'QUERY_DEVICE -> OK, its answer DMAed to guest RAM')
    # ctx_max[] follows the 20 32-bit fields after the two 64-bit ones.
    ctx_max = struct.unpack_from('<%dI' % hw.CTX_RES_COUNT, attr, 16 + 80)
    max_qp, max_pd = (struct.unpack_from('<I', attr, off)[0]
                      for off in (20, 44))
    check(max_qp == MAX_QPS and max_pd == MAX_PDS,
          'QUERY_DEVICE: max_qp %d, max_pd %d, from max-qps and max-pds'
          % (max_qp, max_pd))
    check(ctx_max[hw.CTX_QP] == CTX_MAX_QPS and
          ctx_max[hw.CTX_QMEM_PAGES] == CTX_MAX_QMEM // 4096 and
          ctx_max[hw.CTX_PD] == MAX_PDS // 4,
          'QUERY_DEVICE: a context\'s limits follow ctx-max-qps and '
          'ctx-max-qmem, the others a quarter of the table (%s)'
          % (ctx_max,))
    check(wait_for(lambda: msi(0) == 0xa0),
          'admin completion: MSI-X vector 0 written')
    check(aq.run(hw.CMD_QUERY_DEVICE, struct.pack('<Q', 0xfffffffff000)) ==
          (hw.ST_DMA_ERROR, 0, 0),
          'QUERY_DEVICE to an unbacked address -> DMA_ERROR')

    # ---- refused guest actions: one LOG_GUEST_ERROR line each ---------------
    def logged(prefix):
        with open(log) as f:
            return [ln for ln in f if ln.startswith(prefix)]
    check(wait_for(lambda: logged('qrnic: DMA: ')) and
          logged('qrnic: DMA: ')[0].rstrip().endswith('0xfffffffff000, 0x%x'
                                                      % hw.DEV_ATTR_SIZE)
          and not logged('qrnic: COMMAND: '),
          '-d guest_errors: the DMA_ERROR logged once, as DMA with its '
          'address and length (%s)' % logged('qrnic: '))
    q.wr('l', BAR2 + hw.DB_SQ, 2)
    check(wait_for(lambda: logged('qrnic: DB_ACCESS: ')) and
          logged('qrnic: DB_ACCESS: ')[0].rstrip().endswith('0x0, 0x4'),
          '-d guest_errors: a 4-byte doorbell write logged as DB_ACCESS '
          '(offset 0, size 4)')
    check(aq.run(0x7f) == (hw.ST_BAD_OPCODE, 0, 0) and
          wait_for(lambda: logged('qrnic: COMMAND: ')) and
          logged('qrnic: COMMAND: ')[0].rstrip().endswith('0x7f, 0x%x'
                                                          % hw.ST_BAD_OPCODE),
          '-d guest_errors: admin opcode 0x7f logged as COMMAND (opcode, '
          'BAD_OPCODE)')

    # ---- a BAR2 doorbell: Ethernet TX to the backend, RX back ---------------
    check(aq.run(hw.CMD_CREATE_EQ, struct.pack('<QBBH', EQ, 4, hw.EQ_ASYNC, 0))
          == (hw.ST_OK, 0, 0), 'CREATE_EQ async -> eqn 0')
    check(aq.run(hw.CMD_ETH_SETUP, struct.pack('<QQBBHI', TXR, RXR, 4, 4, 1, 0))
          == (hw.ST_OK, 0, 0), 'ETH_SETUP')
    msi_clear()
    frame = bytes.fromhex('ffffffffffff') + MAC + b'\x08\x06' + bytes(range(46))
    q.mem_write(TXBUF, frame)
    q.mem_write(TXR, struct.pack('<QHHI', TXBUF, len(frame), 0, 0))
    q.wr('q', BAR2 + hw.DB_ETH_TX, 1)
    ready = select.select([rx_sock], [], [], 5)[0]
    got = rx_sock.recv(65536) if ready else b''
    check(got == frame, 'TX doorbell: the frame reaches the netdev backend')
    check(wait_for(lambda: q.mem_read(TXR + 10, 2) ==
                   struct.pack('<H', hw.ETH_DONE)), 'TX descriptor DONE')
    check(wait_for(lambda: msi(1) == 0xa1), 'TX: MSI-X vector 1 written')

    msi_clear()
    q.mem_write(RXR, struct.pack('<QHHI', RXBUF, 2048, 0, 0))
    q.wr('q', BAR2 + hw.DB_ETH_RX, 1)
    inbound = MAC + bytes.fromhex('525400abcdef') + b'\x08\x00' + bytes(range(80))
    sender.sendto(inbound, ('127.0.0.1', dev_port))
    check(wait_for(lambda: q.mem_read(RXR + 8, 4) ==
                   struct.pack('<HH', len(inbound), hw.ETH_DONE)),
          'a frame from the backend: RX descriptor DONE with its length')
    check(q.mem_read(RXBUF, len(inbound)) == inbound, 'RX frame in the buffer')
    check(wait_for(lambda: msi(1) == 0xa1), 'RX: MSI-X vector 1 written')

    # ---- link from the monitor ----------------------------------------------
    msi_clear()
    m.sendall(b'set_link n0 off\n')
    check(wait_for(lambda: q.reg(hw.REG_STATUS) & hw.STATUS_LINK_UP == 0),
          'set_link off clears LINK_UP')
    eqe = q.mem_read(EQ, hw.EQE_SIZE)
    check(eqe[0] == hw.EVENT_LINK and
          struct.unpack_from('<III', eqe, 4) == (0, 0, hw.EQE_PHASE),
          'set_link off: LINK down event')
    check(wait_for(lambda: msi(0) == 0xa0), 'link event: MSI-X vector 0 written')
    m.sendall(b'set_link n0 on\n')
    check(wait_for(lambda: q.reg(hw.REG_STATUS) & hw.STATUS_LINK_UP),
          'set_link on sets LINK_UP')

    rdma_loopback(q, aq, m)
    run_time_props(m)

    # ---- system_reset: QEMU's reset reaches the engine ----------------------
    rss_before = rss_kib(q.p.pid)
    q.cmd('memset 0x%x %d 0x5a' % (BAR4, QMEM // 2))
    rss_written = rss_kib(q.p.pid)
    m.sendall(b'system_reset\n')
    time.sleep(0.2)
    map_bars(q)
    rss_reset = rss_kib(q.p.pid)
    check(rss_written - rss_reset >= QMEM // 2 // 1024 * 9 // 10,
          'system_reset gives queue memory\'s host pages back: RSS %d KiB, '
          '%d after the guest wrote %d KiB of it, %d after the reset'
          % (rss_before, rss_written, QMEM // 2 // 1024, rss_reset))
    check(wait_for(lambda: q.reg(hw.REG_STATUS) == hw.STATUS_LINK_UP),
          'system_reset: READY dropped')
    check(q.reg(hw.REG_AQ_SQ_BASE_LO) == 0 and
          q.rd('q', BAR4 + QMEM - 8) == 0,
          'system_reset: registers and queue memory cleared')
    enable(q)
    aq = Admin(q)
    r = aq.run(hw.CMD_QUERY_RES, struct.pack('<Q', RESP))
    check(r == (hw.ST_OK, 0, 0) and q.mem_read(RESP, 16) == bytes(16),
          'system_reset: enabled again, no objects remain')

    m.sendall(b'quit\n')
    rc = q.quit()
    m.close()
    check(rc == 0, 'QEMU exits cleanly')
    if rc != 0:
        print(q.stderr())
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
