#!/usr/bin/env python3
"""Seed inputs for QEMU's generic-fuzz against qrnic.

    tests/fuzz/qemu-generic-fuzz-seeds.py OUTDIR

writes a few generic-fuzz inputs that do what a driver does, so libFuzzer
starts from a device that is enabled and moving traffic instead of from
random register writes (which in minutes rarely get past the enable
handshake).  Register offsets, opcodes and flags are read from
include/qrnic_hw.h; the structure layouts below follow that header.

generic-fuzz input: operations separated by "FUZZ"; an operation is an
opcode byte (mod 10) and its operands.  MMIO operations name a region by
index among the fuzzed MemoryRegions in address order.  With the
qemu-generic-fuzz.sh configurations (QEMU_FUZZ_OBJECTS='qrnic*',
QEMU_FUZZ_RAM=1, qmem-size=64K, db-pages=4) each device contributes
  +0 registers (BAR0), +1 MSI-X table, +2 PBA, +3 doorbells (BAR2),
  +4 queue memory (BAR4)
and the second device's regions follow the first's (indices wrap modulo
the region count, so with one device both map to it).  Device reads of
guest RAM are answered from the DMA patterns, used in turn.

Seeds:
  bringup     both devices: reset, admin rings, enable, QUERY_* commands
  admin       one device: the other admin opcodes, create and destroy
  eth         both devices: Ethernet rings; A sends an ARP request (to
              slirp, when present) and a RoCEv2 SEND to B's MAC
  rc          both devices: PD, EQ, CQ, MR, a RC QP each, INIT/RTR/RTS
              towards each other, B posts a receive, A posts an inline SEND,
              an RDMA WRITE, an RDMA READ and a FETCH_AND_ADD, the clock
              steps, then QUERY_QP, QUERY_STATS and the teardown.  QP numbers and MR keys are those of a device
              that has created none since QEMU started (qpn 0x402, key
              0x101): the engine keeps its QP generations and MR tags
              across resets, so on a later execution in the same process
              they differ and only part of this seed's path runs (no other
              seed creates a QP or MR, and libFuzzer runs the seeds smallest
              first, so on a fresh corpus it runs whole once).
"""
import os
import re
import struct
import sys
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HDR = os.path.join(TOP, 'include', 'qrnic_hw.h')

# ---- constants from the header ------------------------------------------------
C = {}
with open(HDR) as f:
    text = f.read()
for name, val in re.findall(r'^#define\s+(QRNIC_\w+)\s+([^/\n]+)', text, re.M):
    C[name] = val.strip()
for name, val in re.findall(r'^\s+(QRNIC_\w+)\s*=\s*(\w+)\s*,', text, re.M):
    C[name] = val
# enum qrnic_cmd_opcode is generated from QRNIC_CMD_LIST's rows.
for name, val in re.findall(r'^\s+X\((\w+),\s*(\w+),', text, re.M):
    C['QRNIC_CMD_' + name] = val


def k(name):
    """Evaluate a simple constant expression from the header."""
    expr = C[name]
    for _ in range(4):
        expr = re.sub(r'\b(QRNIC_\w+)\b', lambda m: '(%s)' % C[m.group(1)], expr)
    expr = re.sub(r'\b(0x[0-9a-fA-F]+|\d+)[uU]?[lL]*\b', r'\1', expr)
    return int(eval(expr, {}, {}))


# ---- generic-fuzz operations ---------------------------------------------------
OP_READ, OP_WRITE, OP_PCI_WRITE = 2, 3, 5
OP_ADD_DMA_PATTERN, OP_CLEAR_DMA_PATTERNS, OP_CLOCK_STEP = 7, 8, 9
SIZE = {1: 0, 2: 1, 4: 2, 8: 3}
REGS, DB, QMEM = 0, 3, 4          # region index of device 0; device 1 adds 5
NREG = 5


class Seed:
    def __init__(self):
        self.ops = []
        self.aq_pi = [0, 0]

    def op(self, b):
        assert b'FUZZ' not in b, b
        self.ops.append(b)

    def write(self, dev, region, off, val, size=4):
        self.op(struct.pack('<BBBxxIQ', OP_WRITE, SIZE[size], region + NREG * dev,
                            off, val & ((1 << 8 * size) - 1)))

    def read(self, dev, region, off, size=4):
        self.op(struct.pack('<BBBxxI', OP_READ, SIZE[size], region + NREG * dev, off))

    def reg(self, dev, name, val):
        self.write(dev, REGS, k(name), val)

    def clear_dma(self):
        self.op(bytes([OP_CLEAR_DMA_PATTERNS]))

    def dma(self, data):
        self.op(bytes([OP_ADD_DMA_PATTERN, 0, 0]) + data)

    def clock(self, n=1):
        for _ in range(n):
            self.op(bytes([OP_CLOCK_STEP]))

    def qmem(self, dev, off, data):
        data += bytes(-len(data) % 8)
        for i in range(0, len(data), 8):
            self.write(dev, QMEM, off + i, struct.unpack_from('<Q', data, i)[0], 8)

    def doorbell(self, dev, name, val, page=0):
        self.write(dev, DB, page * k('QRNIC_DB_PAGE_SIZE') + k(name), val, 8)

    def bytes(self):
        return b'FUZZ'.join(self.ops)


# ---- guest memory plan (per device, inside -m 512M) -----------------------------
def ram(dev, off):
    return 0x1000000 * (dev + 1) + off


AQ_SQ, AQ_CQ, ETH_TX, ETH_RX, EQ, CQ, RESP, DATA = (
    0x0000, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x10000)
MAC = [bytes.fromhex('52540000000a'), bytes.fromhex('52540000000b')]
IP = [bytes([10, 0, 2, 15]), bytes([10, 0, 2, 16])]
GID = [bytes(10) + b'\xff\xff' + IP[0], bytes(10) + b'\xff\xff' + IP[1]]
AQ_LOG = 5


def bringup(s, dev):
    s.reg(dev, 'QRNIC_REG_CTRL', k('QRNIC_CTRL_RESET'))
    s.reg(dev, 'QRNIC_REG_AQ_SQ_BASE_LO', ram(dev, AQ_SQ))
    s.reg(dev, 'QRNIC_REG_AQ_SQ_BASE_HI', 0)
    s.reg(dev, 'QRNIC_REG_AQ_CQ_BASE_LO', ram(dev, AQ_CQ))
    s.reg(dev, 'QRNIC_REG_AQ_CQ_BASE_HI', 0)
    s.reg(dev, 'QRNIC_REG_AQ_LOG_DEPTH', AQ_LOG)
    s.reg(dev, 'QRNIC_REG_CTRL', k('QRNIC_CTRL_ENABLE'))
    s.read(dev, REGS, k('QRNIC_REG_STATUS'))
    s.aq_pi[dev] = 0


def admin(s, dev, opname, args=b'', extra=()):
    """One admin command: its 64 bytes (and any buffer the device reads for
    it) as DMA patterns, then the doorbell and the completion consumed."""
    cmd = struct.pack('<BBHI', k('QRNIC_CMD_' + opname), 0, s.aq_pi[dev] + 1, 0)
    cmd += args + bytes(56 - len(args))
    s.clear_dma()
    s.dma(cmd)
    for e in extra:
        s.dma(e)
    s.aq_pi[dev] += 1
    s.reg(dev, 'QRNIC_REG_AQ_DB', s.aq_pi[dev])
    s.reg(dev, 'QRNIC_REG_AQ_CQ_CI', s.aq_pi[dev])


def pbl(addr, npages, levels, shift=12):
    return struct.pack('<QIBBH', addr, npages, levels, shift, 0)


def qp_attr(state, **a):
    return struct.pack('<12BIIIIIHBB16s6sH68x',
                       state, 0, a.get('path_mtu', 0), a.get('timeout', 0),
                       a.get('retry_cnt', 0), a.get('rnr_retry', 0),
                       a.get('min_rnr_timer', 0), a.get('max_rd_atomic', 0),
                       a.get('max_dest_rd_atomic', 0), 0, a.get('hop_limit', 0), 0,
                       a.get('access_flags', 0), a.get('dest_qpn', 0),
                       a.get('rq_psn', 0), a.get('sq_psn', 0), 0, 0,
                       a.get('port_num', 0), 0, a.get('dgid', bytes(16)),
                       a.get('dmac', bytes(6)), 0)


def mask(*names):
    m = 0
    for n in names:
        m |= k('QRNIC_QP_ATTR_' + n)
    return m


# ---- frames ----------------------------------------------------------------------
def icrc_frame(dmac, smac, sip, dip, bth_payload):
    udp_len = 8 + len(bth_payload) + 4
    udp = struct.pack('>HHHH', 0xc000, k('QRNIC_ROCE_UDP_PORT'), udp_len, 0)
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, 1, 0x4000,
                               64, 17, 0, sip, dip))
    csum = sum(struct.unpack('>10H', bytes(ip)))
    while csum >> 16:
        csum = (csum & 0xffff) + (csum >> 16)
    ip[10:12] = struct.pack('>H', ~csum & 0xffff)
    m_ip = bytearray(ip)
    m_ip[1] = 0xff
    m_ip[8] = 0xff
    m_ip[10:12] = b'\xff\xff'
    m_udp = bytearray(udp)
    m_udp[6:8] = b'\xff\xff'
    m_b = bytearray(bth_payload)
    m_b[4] = 0xff
    icrc = zlib.crc32(b'\xff' * 8 + bytes(m_ip) + bytes(m_udp) + bytes(m_b))
    return dmac + smac + b'\x08\x00' + bytes(ip) + udp + bth_payload + struct.pack('<I', icrc)


def bth(opcode, qpn, psn):
    return struct.pack('>BBH', opcode, 0x40, 0xffff) + b'\x00' + \
        qpn.to_bytes(3, 'big') + struct.pack('>I', (1 << 31) | psn)


def arp_request(smac, sip, tip):
    return b'\xff' * 6 + smac + b'\x08\x06' + struct.pack(
        '>HHBBH6s4s6s4s', 1, 0x0800, 6, 4, 1, smac, sip, bytes(6), tip) + bytes(18)


# ---- seeds -----------------------------------------------------------------------
def seed_bringup():
    s = Seed()
    for dev in (0, 1):
        bringup(s, dev)
        admin(s, dev, 'QUERY_DEVICE', struct.pack('<Q', ram(dev, RESP)))
        admin(s, dev, 'QUERY_RES', struct.pack('<Q', ram(dev, RESP + 0x100)))
        admin(s, dev, 'QUERY_STATS', struct.pack('<Q', ram(dev, RESP + 0x200)))
    return s


def seed_admin():
    s = Seed()
    d = 0
    bringup(s, d)
    admin(s, d, 'SET_MAC', MAC[d])
    admin(s, d, 'SET_MTU', struct.pack('<I', 4200))
    admin(s, d, 'ADD_GID', struct.pack('<II16s', 0, k('QRNIC_GID_TYPE_ROCE_V2'), GID[d]))
    admin(s, d, 'ADD_GID', struct.pack('<II16s', 1, k('QRNIC_GID_TYPE_ROCE_V2'),
                                       bytes.fromhex('fe800000000000005054' '00fffe00000a')))
    admin(s, d, 'DEL_GID', struct.pack('<I', 1))
    admin(s, d, 'ALLOC_UCTX')
    admin(s, d, 'ALLOC_PD', struct.pack('<I', 0))
    admin(s, d, 'ALLOC_PD', struct.pack('<I', 1))
    admin(s, d, 'CREATE_EQ', struct.pack('<QBBH', ram(d, EQ), 4, k('QRNIC_EQ_ASYNC'), 0))
    admin(s, d, 'CREATE_EQ', struct.pack('<QBBH', ram(d, EQ + 0x400), 4, 0, 2))
    admin(s, d, 'CREATE_CQ', pbl(ram(d, CQ), 1, k('QRNIC_PBL_CONTIG')) +
          struct.pack('<IIB3x', 0, 1, 4))
    # QPs and MRs are left to the rc seed (see above).
    admin(s, d, 'DESTROY_CQ', struct.pack('<I', 1))
    admin(s, d, 'DESTROY_EQ', struct.pack('<I', 1))
    admin(s, d, 'DEALLOC_PD', struct.pack('<I', 2))
    admin(s, d, 'DEALLOC_UCTX', struct.pack('<I', 1))
    admin(s, d, 'ETH_SETUP', struct.pack('<QQBBHI', ram(d, ETH_TX), ram(d, ETH_RX), 4, 4, 1, 0))
    admin(s, d, 'ETH_TEARDOWN')
    admin(s, d, 'QUERY_RES', struct.pack('<Q', ram(d, RESP + 0x100)))
    return s


def eth_setup(s, dev):
    bringup(s, dev)
    admin(s, dev, 'SET_MAC', MAC[dev])
    admin(s, dev, 'ETH_SETUP', struct.pack('<QQBBHI', ram(dev, ETH_TX), ram(dev, ETH_RX),
                                           4, 4, 1, 0))


def seed_eth():
    s = Seed()
    for dev in (0, 1):
        eth_setup(s, dev)
    s.reg(0, 'QRNIC_REG_INTR_MASK', 0)
    frames = [arp_request(MAC[0], IP[0], bytes([10, 0, 2, 2])),
              icrc_frame(MAC[1], MAC[0], IP[0], IP[1],
                         bth(0x04, 0x402, 0) + bytes(range(32)))]
    rxdesc = struct.pack('<QHHI', ram(1, DATA + 0x4000), 2048, 0, 0)
    # B's RX ring: 8 buffers posted (their descriptors read by DMA now or
    # when a frame arrives).
    s.clear_dma()
    s.dma(rxdesc)
    s.doorbell(1, 'QRNIC_DB_ETH_RX', 8)
    for i, fr in enumerate(frames):
        desc = struct.pack('<QHHI', ram(0, DATA + 0x1000 * i), len(fr), 0, 0)
        s.clear_dma()
        s.dma(desc)
        s.dma(fr)
        s.dma(rxdesc)
        s.doorbell(0, 'QRNIC_DB_ETH_TX', i + 1)
        s.clock()
    return s


def rc_setup(s, dev):
    # With its Ethernet rings set up the device takes no frame, RoCE ones
    # included, while the RX ring has no free buffer (and before the engine
    # rewrite it took RoCE frames only with the rings set up).
    eth_setup(s, dev)
    s.clear_dma()
    s.doorbell(dev, 'QRNIC_DB_ETH_RX', 8)
    admin(s, dev, 'ADD_GID', struct.pack('<II16s', 0, k('QRNIC_GID_TYPE_ROCE_V2'), GID[dev]))
    admin(s, dev, 'ALLOC_PD', struct.pack('<I', 0))
    admin(s, dev, 'CREATE_EQ', struct.pack('<QBBH', ram(dev, EQ), 4, 0, 2))
    admin(s, dev, 'CREATE_CQ', pbl(ram(dev, CQ), 1, k('QRNIC_PBL_CONTIG')) +
          struct.pack('<IIB3x', 0, 0, 4))
    admin(s, dev, 'REG_MR', pbl(0, 0, k('QRNIC_PBL_PHYS'), 0) +
          struct.pack('<QQII', 0, 0x20000000, 1, k('QRNIC_ACCESS_ALL')))
    # A LEVEL1 page list: the device reads the two page addresses by DMA.
    admin(s, dev, 'REG_MR', pbl(ram(dev, RESP + 0x800), 2, k('QRNIC_PBL_LEVEL1')) +
          struct.pack('<QQII', 0x7000, 0x2000, 1, k('QRNIC_ACCESS_ALL')),
          extra=[struct.pack('<QQ', ram(dev, DATA), ram(dev, DATA + 0x1000))])
    admin(s, dev, 'CREATE_QP', struct.pack('<6IBBBBBB2x', 1, 1, 1, 0, 0, 0x1000,
                                           k('QRNIC_QPT_RC'), k('QRNIC_QP_SIG_ALL'),
                                           4, 7, 4, 5))


def rc_connect(s, dev, qpn, peer_qpn):
    peer = 1 - dev
    attr = struct.pack('<Q', ram(dev, RESP + 0x400))
    admin(s, dev, 'MODIFY_QP', struct.pack('<II', qpn, mask('STATE', 'PKEY_INDEX', 'PORT',
                                                            'ACCESS_FLAGS')) + attr,
          extra=[qp_attr(k('QRNIC_QPS_INIT'), port_num=1, access_flags=0xe)])
    admin(s, dev, 'MODIFY_QP', struct.pack('<II', qpn, mask(
        'STATE', 'AV', 'PATH_MTU', 'DEST_QPN', 'RQ_PSN', 'MAX_DEST_RD_ATOMIC',
        'MIN_RNR_TIMER')) + attr,
          extra=[qp_attr(k('QRNIC_QPS_RTR'), path_mtu=3, dest_qpn=peer_qpn, rq_psn=0,
                         max_dest_rd_atomic=4, min_rnr_timer=12, hop_limit=64,
                         dgid=GID[peer], dmac=MAC[peer])])
    admin(s, dev, 'MODIFY_QP', struct.pack('<II', qpn, mask(
        'STATE', 'TIMEOUT', 'RETRY_CNT', 'RNR_RETRY', 'SQ_PSN', 'MAX_QP_RD_ATOMIC')) + attr,
          extra=[qp_attr(k('QRNIC_QPS_RTS'), timeout=14, retry_cnt=7, rnr_retry=7,
                         sq_psn=0, max_rd_atomic=4)])


def sq_wqe(opcode, flags, num_sge=0, imm=0, inline_len=0, raddr=0, rkey=0, cmp=0, swap=0):
    return struct.pack('<QBBBxIIIQIIQQQ', 0x1000 + k('QRNIC_WR_' + opcode), k('QRNIC_WR_' + opcode), flags,
                       num_sge, imm, inline_len, 0, raddr, rkey, 0, cmp, swap, 0)


def sge(addr, length, key):
    return struct.pack('<QII', addr, length, key)


def seed_rc():
    s = Seed()
    qpn, key = 0x402, 0x101
    for dev in (0, 1):
        rc_setup(s, dev)
    for dev in (0, 1):
        rc_connect(s, dev, qpn, qpn)
    sig = k('QRNIC_WQE_F_SIGNALED')
    # B: two receives of 256 bytes each (RQ at queue memory 0x1000, 32 B stride).
    for i in range(2):
        s.qmem(1, 0x1000 + 32 * i, struct.pack('<QB7x', 0x2000 + i, 1) +
               sge(ram(1, DATA + 0x100 * i), 256, key))
    s.doorbell(1, 'QRNIC_DB_RQ', qpn | 2 << 32)
    s.doorbell(0, 'QRNIC_DB_CQ', 1 | k('QRNIC_DB_ARM') | 0 << 32)
    payload = b'qrnic generic-fuzz inline send!!'
    wqes = [
        sq_wqe('SEND', sig | k('QRNIC_WQE_F_INLINE'), inline_len=len(payload)) + payload,
        sq_wqe('RDMA_WRITE', sig, 1, raddr=ram(1, DATA + 0x2000), rkey=key) +
        sge(ram(0, DATA), 64, key),
        sq_wqe('RDMA_READ', sig, 1, raddr=ram(1, DATA + 0x3000), rkey=key) +
        sge(ram(0, DATA + 0x1000), 128, key),
        sq_wqe('ATOMIC_FETCH_AND_ADD', sig, 1, raddr=ram(1, DATA + 0x3800), rkey=key,
               cmp=1) + sge(ram(0, DATA + 0x1800), 8, key),
    ]
    for i, w in enumerate(wqes):
        s.qmem(0, 128 * i, w)
    s.clear_dma()
    s.dma(bytes(range(0x20, 0x60)))
    s.doorbell(0, 'QRNIC_DB_SQ', qpn | len(wqes) << 32)
    s.clock(16)     # timers, and frames held by a filter-buffer
    s.read(0, REGS, k('QRNIC_REG_STATUS'))
    for dev in (0, 1):
        admin(s, dev, 'QUERY_QP', struct.pack('<IIQ', qpn, 0, ram(dev, RESP + 0x400)))
        admin(s, dev, 'QUERY_STATS', struct.pack('<Q', ram(dev, RESP + 0x200)))
        admin(s, dev, 'DESTROY_QP', struct.pack('<I', qpn))
        admin(s, dev, 'DEREG_MR', struct.pack('<I', 0x201))
        admin(s, dev, 'DEREG_MR', struct.pack('<I', key))
    return s


SEEDS = {'bringup': seed_bringup, 'admin': seed_admin, 'eth': seed_eth, 'rc': seed_rc}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, fn in SEEDS.items():
        with open(os.path.join(out, 'seed-' + name), 'wb') as f:
            f.write(fn().bytes())


if __name__ == '__main__':
    main()
