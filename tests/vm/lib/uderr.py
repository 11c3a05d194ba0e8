#!/usr/bin/env python3
# Error cases of address handles, UD Q_Keys and RC RNR on one device
# (loopback between two QPs), for tests/vm/uderr.sh.  Prints "ok - ..." /
# "not ok - ..." lines and "# ..." comments; exits with the failure count.
#   uderr.py IBDEV GID_INDEX NIC
import errno
import os
import sys
import time

from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR
import pyverbs.enums as e

dev, gid_index, nic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
port = 1
hw = f'/sys/class/infiniband/{dev}/ports/{port}/hw_counters'
QKEY = 0x11111111
BAD_QKEY = 0x22222222
GRH = 40
failures = 0


def ok(name):
    print(f'ok - {name}', flush=True)


def not_ok(name):
    global failures
    failures += 1
    print(f'not ok - {name}', flush=True)


def check(name, cond, detail=''):
    if cond:
        ok(name)
    else:
        not_ok(f'{name}{" (" + detail + ")" if detail else ""}')
    return cond


def counter(name):
    """A hw counter of the port, or None if the device has none such."""
    try:
        with open(f'{hw}/{name}') as f:
            return int(f.read())
    except OSError:
        return None


def poll(cq, timeout):
    """The first completion of CQ within TIMEOUT seconds, or None."""
    end = time.monotonic() + timeout
    while True:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
        if time.monotonic() >= end:
            return None
        time.sleep(0.001)


ctx = Context(name=dev)
pd = PD(ctx)
gid = ctx.query_gid(port, gid_index)


def global_ah(sgid_index, dgid=None):
    gr = GlobalRoute(dgid=dgid if dgid is not None else gid,
                     sgid_index=sgid_index)
    return AH(pd, attr=AHAttr(port_num=port, is_global=1, gr=gr))


# 1. Address handles naming a GID index beyond the table or an empty slot.
tbl_len = ctx.query_port(port).gid_tbl_len


def ah_fails(desc, idx, codes=(errno.EINVAL,)):
    names = ' or '.join(errno.errorcode[c] for c in codes)
    try:
        ah = global_ah(idx)
    except PyverbsRDMAError as ex:
        got = errno.errorcode.get(ex.error_code, str(ex.error_code))
        check(f'AH with {desc} (GID index {idx}) fails with {got} ({names})',
              ex.error_code in codes,
              f'error {ex.error_code} {os.strerror(ex.error_code)}')
        return
    ah.close()
    not_ok(f'AH with {desc} (GID index {idx}) was created')


# The AH's sgid_index is 8 bits wide.
if tbl_len <= 250:
    ah_fails(f'an index beyond the table of {tbl_len}', 250)
else:
    print(f'# {dev}: a GID table of {tbl_len}: an 8-bit GID index cannot '
          f'go beyond it, that case is skipped')
empty = None
for i in range(min(tbl_len, 256)):
    try:
        with open(f'/sys/class/infiniband/{dev}/ports/{port}/gid_attrs/types/{i}') as f:
            f.read()
    except OSError:
        empty = i
        break
if empty is None:
    print(f'# no empty slot in the GID table of {tbl_len}: the empty-slot case is skipped')
else:
    # The kernel's core (rdma_get_gid_attr) refuses an empty slot with
    # ENODATA before the driver sees the AH; EINVAL is just as right.
    ah_fails('an empty slot', empty, (errno.EINVAL, errno.ENODATA))

# 2. UD: a datagram with the wrong Q_Key is dropped, the right one arrives.
SIZE = 256
ud_scq, ud_rcq = CQ(ctx, 16), CQ(ctx, 16)
ud_mr = MR(pd, 2 * (GRH + SIZE), e.IBV_ACCESS_LOCAL_WRITE)
ud_cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)


def ud_qp(cq):
    attr = QPAttr(port_num=port)
    attr.qkey = QKEY
    attr.pkey_index = 0
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=ud_cap),
              attr)


ud_sqp, ud_rqp = ud_qp(ud_scq), ud_qp(ud_rcq)
ud_ah = global_ah(gid_index)
recv_off, send_off = 0, GRH + SIZE


def ud_send(payload, qkey):
    ud_mr.write(payload, len(payload), send_off)
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(ud_mr.buf + send_off, len(payload), ud_mr.lkey)])
    wr.send_flags = e.IBV_SEND_SIGNALED
    wr.set_wr_ud(ud_ah, ud_rqp.qp_num, qkey)
    ud_sqp.post_send(wr, None)
    wc = poll(ud_scq, 10)
    return wc is not None and wc.status == e.IBV_WC_SUCCESS, wc


def ud_good(what):
    """A datagram with the right Q_Key arrives intact."""
    payload = bytes((i * 7 + len(what)) & 0xff for i in range(SIZE))
    ud_mr.write(bytes(GRH + SIZE), GRH + SIZE, recv_off)
    ud_rqp.post_recv(RecvWR(wr_id=2, num_sge=1,
                            sg=[SGE(ud_mr.buf + recv_off, GRH + SIZE, ud_mr.lkey)]), None)
    sent, swc = ud_send(payload, QKEY)
    wc = poll(ud_rcq, 10)
    if wc is None:
        not_ok(f'{what}: no receive completion (send {"done" if sent else swc and swc.status})')
        return
    got = ud_mr.read(SIZE, recv_off + GRH)
    check(f'{what}: received intact ({GRH} + {SIZE} bytes from QP {ud_sqp.qp_num:#x})',
          wc.status == e.IBV_WC_SUCCESS and wc.byte_len == GRH + SIZE and
          wc.src_qp == ud_sqp.qp_num and got == payload,
          f'status {wc.status}, byte_len {wc.byte_len}, src_qp {wc.src_qp:#x}, '
          f'payload {"equal" if got == payload else "differs"}')


qkey_before = counter('rx_qkey_err')
ud_rqp.post_recv(RecvWR(wr_id=1, num_sge=1,
                        sg=[SGE(ud_mr.buf + recv_off, GRH + SIZE, ud_mr.lkey)]), None)
sent, swc = ud_send(b'\x5a' * SIZE, BAD_QKEY)
check(f'UD send with Q_Key {BAD_QKEY:#x} to a QP of Q_Key {QKEY:#x} completes',
      sent, f'{swc.status if swc else "no completion"}')
wc = poll(ud_rcq, 1.0)
check('the datagram with the wrong Q_Key is dropped (no receive completion in 1 s)',
      wc is None, f'got status {wc.status if wc else None}, byte_len {wc.byte_len if wc else None}')
time.sleep(0.05)
qkey_after = counter('rx_qkey_err')
if qkey_before is None:
    print(f'# {dev}: no rx_qkey_err counter, its count is not checked')
else:
    check(f'rx_qkey_err grew by 1 ({qkey_before} -> {qkey_after})',
          qkey_after == qkey_before + 1)
if wc is None:
    # The receive posted for the dropped datagram takes the good one.
    payload = bytes((i * 3) & 0xff for i in range(SIZE))
    sent, swc = ud_send(payload, QKEY)
    wc = poll(ud_rcq, 10)
    got = ud_mr.read(SIZE, recv_off + GRH)
    check(f'then a datagram with the right Q_Key is received intact '
          f'({GRH} + {SIZE} bytes, src_qp {ud_sqp.qp_num:#x})',
          wc is not None and wc.status == e.IBV_WC_SUCCESS and
          wc.byte_len == GRH + SIZE and wc.src_qp == ud_sqp.qp_num and got == payload,
          f'{"no completion" if wc is None else f"status {wc.status}, byte_len {wc.byte_len}, src_qp {wc.src_qp:#x}"}')

# 3. RC: the receiver's SRQ is empty and the sender has rnr_retry 0.
rc_objs = []


def rc_pair(rnr_retry):
    scq, rcq = CQ(ctx, 16), CQ(ctx, 16)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    sqp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=scq, cap=cap),
             QPAttr(port_num=port))
    rqp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=rcq, rcq=rcq, srq=srq,
                            cap=cap), QPAttr(port_num=port))
    for qp, peer, rnr in ((sqp, rqp, rnr_retry), (rqp, sqp, 7)):
        attr = QPAttr(port_num=port)
        attr.path_mtu = e.IBV_MTU_1024
        attr.max_dest_rd_atomic = 1
        attr.max_rd_atomic = 1
        attr.min_rnr_timer = 1
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = rnr
        attr.ah_attr = AHAttr(port_num=port, is_global=1,
                              gr=GlobalRoute(dgid=gid, sgid_index=gid_index))
        attr.dest_qp_num = peer.qp_num
        attr.rq_psn = 0x100 if qp is rqp else 0x200
        attr.sq_psn = 0x200 if qp is rqp else 0x100
        qp.to_rts(attr)
    objs = (sqp, rqp, srq, scq, rcq)
    rc_objs.append(objs)
    return objs


rc_mr = MR(pd, 2 * SIZE, e.IBV_ACCESS_LOCAL_WRITE)


def rc_send(sqp, payload):
    rc_mr.write(payload, len(payload), SIZE)
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(rc_mr.buf + SIZE, len(payload), rc_mr.lkey)])
    wr.send_flags = e.IBV_SEND_SIGNALED
    sqp.post_send(wr, None)


rnr_before = counter('rnr_naks_tx')
sqp, rqp, srq, scq, rcq = rc_pair(0)
rc_send(sqp, b'\xa5' * SIZE)
wc = poll(scq, 20)
check('RC SEND to a QP whose SRQ is empty, rnr_retry 0: RNR_RETRY_EXC_ERR (13)',
      wc is not None and wc.status == e.IBV_WC_RNR_RETRY_EXC_ERR,
      'no completion' if wc is None else f'status {wc.status}')
wc = poll(rcq, 0.2)
check('the receiver has no completion', wc is None,
      '' if wc is None else f'status {wc.status}')
time.sleep(0.05)
rnr_after = counter('rnr_naks_tx')
if rnr_before is None:
    print(f'# {dev}: no rnr_naks_tx counter, the RNR NAKs sent are not counted')
else:
    check(f'rnr_naks_tx grew ({rnr_before} -> {rnr_after})', rnr_after > rnr_before)

sqp, rqp, srq, scq, rcq = rc_pair(0)
rc_mr.write(bytes(SIZE), SIZE, 0)
srq.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(rc_mr.buf, SIZE, rc_mr.lkey)]), None)
payload = bytes((i * 11) & 0xff for i in range(SIZE))
rc_send(sqp, payload)
swc, rwc = poll(scq, 20), poll(rcq, 20)
got = rc_mr.read(SIZE, 0)
check(f'then a fresh RC pair with an SRQ WQE posted: SEND of {SIZE} bytes arrives intact',
      swc is not None and swc.status == e.IBV_WC_SUCCESS and rwc is not None and
      rwc.status == e.IBV_WC_SUCCESS and rwc.wr_id == 7 and rwc.byte_len == SIZE and
      got == payload,
      f'send {swc and swc.status}, recv {rwc and rwc.status}, '
      f'byte_len {rwc and rwc.byte_len}, payload {"equal" if got == payload else "differs"}')

# Afterwards the device still works: a good datagram.
ud_good('after the errors, a UD datagram')

for objs in rc_objs:
    for o in objs:
        o.close()
ctx.close()
sys.exit(failures)
