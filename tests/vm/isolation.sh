#!/bin/sh
# Unprivileged guest users (issue 25): in one qrnic guest, a hostile
# unprivileged user (uid 1002, "the attacker") beside a victim process of
# another user (uid 1001) must not be able to crash the kernel, read what
# others wrote into queue memory, freeze the others' RC traffic or take
# the device's resources from them.  Run as root; each part runs
# `qrnic-isolation` (tests/tools/rc-isolation.c) as the two users through
# setpriv, with a memlock limit of 64 MiB:
#
#   mem     the victim's `fill` writes a marker into its RC, SRQ and UD
#           queues and holds them while the kernel verbs test
#           (kverbs.sh) writes its own; both exit, then the attacker's
#           `scan` creates QPs and SRQs and reads every byte of its
#           doorbell page and queue slices before posting anything: all
#           0.  With iomem=relaxed on the kernel command line, root reads
#           the device's queue memory (sysfs resource4) before and during
#           the scan and checks the scan's queues took pages that held the
#           victim's marker and the kernel's data: the device cleared them
#   srq     the attacker's `srq-race`: threads resize one SRQ through the
#           provider and around it (the driver's method, MODIFY_SRQ,
#           QUERY_SRQ through ioctl/write) while receives are posted and
#           taken; then the SRQ still works, both views of its depth agree;
#           an SRQ destroyed while being resized; the victim still works
#   udata   the attacker's `udata`: raw uverbs commands with nonzero
#           trailing driver data (EOPNOTSUPP), zero (accepted), short
#           responses (EINVAL), MODIFY_SRQ with IBV_SRQ_MAX_WR (EOPNOTSUPP)
#   freeze  for each timeout T (-T) and with peers in RESET and destroyed:
#           the attacker's K (-k) RC QPs write 1 MiB each to peers that
#           never answer; the victim's 32 x 16 KiB RDMA WRITEs must take at
#           most max(3 x alone, alone + 0.5 s) in every run under attack.
#           Why that bound holds by design: the victim's context has its
#           own window and at least a fair share of the device's caps; an
#           unanswered QP stops holding room once its probe timer declares
#           its packets lost (at most ~4 probe times of 2 ms after its last
#           answer) and holds the others back at most twice a probe time
#           when found starved: K dead QPs cost tens of milliseconds, not
#           the seconds (or forever) the bound catches; 3 x alone absorbs
#           TCG noise (rc-iso-freeze.c has the details).  The attacker
#           checks its QPs were still stuck (in RTS, nothing completed,
#           packets resent) when the victim finished
#   quota   for each kind (PDs, CQs, QPs, SRQs, MRs, MWs, queue memory, MR
#           pages) an attacker process fills its context to the device's
#           limit (the probe's dmesg line): refused with ENOMEM exactly
#           there, each refusal counted in ctx_over_quota; with all of them
#           held the victim creates one of each kind and sends through its
#           SRQ, and the kernel verbs test passes
#   ctx     the attacker opens contexts until the device has none left
#           (ENOMEM at db-pages - 1 in all): the victim cannot open one
#           (contexts are a device-wide table), kernel verbs still work;
#           then in an rdma cgroup limited to hca_handle=4 the attacker gets
#           4 (EAGAIN after) and the victim opens the device and sends
#   xrc     the attacker allocates XRC domains until the driver refuses
#           (ENOMEM at the PD limit), the first on a file; a second attacker
#           process opens that file's domain and creates XRC_TGT QPs in it
#           until ENOMEM at the QP limit (they count against the first
#           process's context; its own still creates an RC QP); with both
#           held the victim creates its objects, sends through its SRQ and
#           creates a domain, an XRC SRQ and an XRC_TGT QP, and the kernel
#           verbs test passes; the first process exits and its device
#           context stays (the shared domain's QPs still count against it)
#           until the second exits
#
# After each part the device's resource counts (hw_counters/res_*) are
# back and dmesg has no refcount, use-after-free, BUG, WARNING, Oops or
# general protection message.
#
#   isolation.sh [-n THREADS] [-i ITERS] [-q QPS] [-k ATTACKERS] [-T "0 18 31"]
#                [-r RUNS] [PART...]        (4 200 12 8 "0 18 31" 5; all parts)
. "$(dirname "$0")/lib.sh"
dir=$(dirname "$0")

threads=4 iters=200 qps=12 attackers=8 timeouts="0 18 31" runs=5
while getopts "n:i:q:k:T:r:" o; do
	case "$o" in
	n) threads=$OPTARG ;; i) iters=$OPTARG ;; q) qps=$OPTARG ;;
	k) attackers=$OPTARG ;; T) timeouts=$OPTARG ;; r) runs=$OPTARG ;;
	*) echo "usage: isolation.sh [-n T] [-i M] [-q N] [-k K] [-T LIST] [-r R] [PART...]"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
parts=${*:-mem srq udata freeze quota ctx xrc}

[ "$QRNIC_NIC" = qrnic ] || { echo "# isolation: qrnic guests only"; exit 0; }
VICTIM=1001 ATTACKER=1002
w=/tmp/iso
rm -rf "$w" && mkdir -m 1777 "$w"
tool=qrnic-isolation

# as UID CMD...: CMD as user UID (no groups), memlock $memlock KiB, at
# most $nofile open files, in the cgroup $cgroup if set ("0" moves the
# writer: this subshell, which then becomes CMD).
memlock=65536 nofile=1024 cgroup=
as() {
	_u=$1; shift
	(
		[ -z "$cgroup" ] || echo 0 > "$cgroup/cgroup.procs" || exit 125
		ulimit -l "$memlock" && ulimit -n "$nofile" &&
			exec setpriv --reuid="$_u" --regid="$_u" --clear-groups -- "$@"
	)
}

# The limits the device reports at probe (the driver's dev_info line).
probe=$(dmesg | grep -m1 -E 'user contexts, each at most')
lim() { printf '%s\n' "$probe" | sed -n "s/.*[ ,]\([0-9][0-9]*\) $1.*/\1/p"; }
lim_ctx=$(lim 'user contexts') lim_pd=$(lim PDs) lim_cq=$(lim CQs) lim_qp=$(lim QPs)
lim_srq=$(lim SRQs) lim_mr=$(lim MRs) lim_mw=$(lim MWs)
lim_qmem=$(lim 'queue memory pages') lim_mr_pages=$(lim 'MR pages')
if [ -z "$lim_ctx" ] || [ -z "$lim_mr_pages" ]; then
	fail "the driver printed the device's per-context limits at probe (dmesg: '${probe:-nothing}')"
	finish
fi
pass "limits: $lim_ctx contexts; each at most $lim_pd PDs, $lim_cq CQs, $lim_qp QPs, $lim_srq SRQs, $lim_mr MRs, $lim_mw MWs, $lim_qmem queue pages, $lim_mr_pages MR pages"

# No udev in the guest: the mode rdma-core's udev rule gives the device
# (ib_uverbs asks devtmpfs for 0666 itself; this makes sure).
uv=/dev/infiniband/$(ls /sys/class/infiniband/"$QRNIC_IBDEV"/device/infiniband_verbs)
echo "# $uv: mode $(stat -c %a "$uv")"
chmod 0666 "$uv"

hw_iso="uctx pd cq qp srq mr mw mr_pages"
counts() { hw_counts $hw_iso; }
counts_are() { [ "$(counts)" = "$1" ]; }
base=$(counts)
echo "# device counts at the start: $base"

dmesg_trouble() {
	dmesg | grep -E 'refcount_t|use-after-free|BUG:|WARNING:|Oops|general protection' || true
}
# What the part's kernel messages had before kverbs.sh cleared them.
trouble=

# part_end PART: counts back, dmesg clean (then cleared for the next part).
part_end() {
	check "$1: device counts back to '$base'" retry 30 counts_are "$base"
	counts_are "$base" || echo "#   now: $(counts)"
	_bad=$trouble$(dmesg_trouble)
	trouble=
	[ -z "$_bad" ] || printf '%s\n' "$_bad" | head -n 20 | sed 's/^/#   dmesg: /'
	check "$1: no refcount, use-after-free, BUG, WARNING, Oops or GPF in dmesg" test -z "$_bad"
	dmesg -C
}

# hold NAME UID ARGS...: start `qrnic-isolation ARGS` as UID in the
# background with --ready/--release files $w/NAME.*, its output in
# $w/NAME.out; wait until it is ready.  Fails (1) if it ends first.
hold() {
	_h=$1 _hu=$2; shift 2
	rm -f "$w/$_h.ready" "$w/$_h.release"
	as "$_hu" $tool --ready "$w/$_h.ready" --release "$w/$_h.release" "$@" > "$w/$_h.out" 2>&1 &
	echo $! > "$w/$_h.pid"
	_hi=0
	while [ ! -e "$w/$_h.ready" ]; do
		kill -0 "$(cat "$w/$_h.pid")" 2>/dev/null && [ "$_hi" -lt 600 ] || return 1
		sleep 0.5
		_hi=$((_hi + 1))
	done
}
# release NAME CHECK: end the hold, wait for the process, count its lines.
release() {
	: > "$w/$1.release"
	wait "$(cat "$w/$1.pid")"
	tap_result "$2" $? "$w/$1.out"
}

# kernel_verbs: the kernel's own consumer (tests/kmod) still works.
kernel_verbs() {
	trouble=$trouble$(dmesg_trouble)
	sh "$dir/kverbs.sh" || failures=$((failures + 1))
}

# ---- mem ---------------------------------------------------------------------

# page_set FILE KIND: the page numbers of one line of a `bar4` dump.
page_set() { sed -n "s/^$2//p" "$1"; }
# minus "A" "B": the words of A that are not in B.
minus() {
	for _x in $1; do
		case " $2 " in *" $_x "*) ;; *) printf '%s ' "$_x" ;; esac
	done
}
count_words() { set -- $1; echo $#; }

part_mem() {
	$tool bar4 start > "$w/bar4.0"
	bar4=$?
	[ "$bar4" = 0 ] || sed -n 's/^# /# skip: /p' "$w/bar4.0"
	hold fill $VICTIM fill || { fail "mem: the victim's fill never got ready"; cat "$w/fill.out"; }
	[ "$bar4" = 0 ] && $tool bar4 "while the victim holds its queues" > "$w/bar4.f"
	echo "# the kernel writes queue memory too, then frees it:"
	kernel_verbs
	release fill "fill (the victim, uid $VICTIM)"
	[ "$bar4" = 0 ] && $tool bar4 "after the victim and the kernel" > "$w/bar4.1"
	hold scan $ATTACKER --qps "$qps" scan || fail "mem: the attacker's scan never got ready"
	[ "$bar4" = 0 ] && $tool bar4 "while the scan holds its queues" > "$w/bar4.2"
	release scan "scan (the attacker, uid $ATTACKER)"
	[ "$bar4" = 0 ] || return 0
	grep -h '^#' "$w/bar4.0" "$w/bar4.1" "$w/bar4.2"
	_m1=$(page_set "$w/bar4.1" marker)
	_k1=$(minus "$(page_set "$w/bar4.1" nonzero)" "$(page_set "$w/bar4.0" nonzero) $_m1")
	_n2=$(page_set "$w/bar4.2" nonzero)
	_mc=$(minus "$_m1" "$_n2") _kc=$(minus "$_k1" "$_n2")
	_mf=$(page_set "$w/bar4.f" marker)
	check "mem: while the victim held its queues, pages [ $_mf] held its marker" test -n "$_mf"
	if [ -z "$_m1" ] && [ -z "$_k1" ]; then
		# The device gives a destroyed queue's pages back (they read as
		# zero), so nothing is left for a new owner to find.
		pass "mem: once the victim and the kernel freed their queues, no page held their data"
	else
		check "mem: the scan's queues took $(count_words "$_mc") of the victim's marker pages [ $_mc] (cleared before the scan read them)" \
			test -n "$_mc"
		check "mem: the scan's queues took $(count_words "$_kc") of the kernel's pages [ $_kc] (cleared before the scan read them)" \
			test -n "$_kc"
	fi
	check "mem: no page of the scan's queues holds the victim's marker" \
		test -z "$(page_set "$w/bar4.2" marker)"
}

# ---- srq, udata ------------------------------------------------------------------

part_srq() {
	run_tap "srq-race" as $ATTACKER $tool --threads "$threads" --iters "$iters" srq-race
	run_tap "victim after the SRQ race" as $VICTIM $tool victim
}

part_udata() {
	run_tap "udata" as $ATTACKER $tool udata
}

# ---- freeze ------------------------------------------------------------------------

part_freeze() {
	for _t in $timeouts; do
		for _peer in reset destroyed; do
			_opt=
			[ "$_peer" = destroyed ] && _opt=--destroyed
			echo "# freeze: timeout $_t, $attackers attacker QPs, peers $_peer"
			as $VICTIM $tool -s "$w" -T "freeze-$_t-$_peer" -i 0 --runs "$runs" \
				freeze-victim > "$w/fv.out" 2>&1 &
			_vp=$!
			as $ATTACKER $tool -s "$w" -T "freeze-$_t-$_peer" -i 1 --qps "$attackers" \
				--timeout "$_t" $_opt freeze-attacker > "$w/fa.out" 2>&1
			_ars=$?
			wait $_vp
			tap_result "freeze victim (timeout $_t, peers $_peer)" $? "$w/fv.out"
			tap_result "freeze attacker (timeout $_t, peers $_peer)" $_ars "$w/fa.out"
		done
	done
}

# ---- quota -------------------------------------------------------------------------

part_quota() {
	_q0=$(hwc ctx_over_quota)
	_refused=0
	_held=
	for _kl in pd:$lim_pd cq:$lim_cq qp:$lim_qp srq:$lim_srq mr:$lim_mr mw:$lim_mw \
			qmem:$lim_qmem mr-pages:$lim_mr_pages; do
		_k=${_kl%:*} _l=${_kl#*:}
		# Registering MR pages pins them: the memlock limit must not be
		# what refuses.
		[ "$_k" = mr-pages ] && memlock=$((_l * 4 + 65536))
		if hold "quota-$_k" $ATTACKER --limit "$_l" quota "$_k"; then
			_held="$_held $_k"
			set -- $(cat "$w/quota-$_k.ready")
			_refused=$((_refused + $4))
		else
			fail "quota $_k: the attacker never got ready"
			cat "$w/quota-$_k.out"
		fi
		memlock=65536
	done
	_q1=$(hwc ctx_over_quota)
	check "quota: ctx_over_quota moved by every refusal the attackers saw ($_refused: $_q0 -> $_q1)" \
		test "$((_q1 - _q0))" -eq "$_refused"
	echo "# with every kind held by the attackers: $(counts)"
	run_tap "victim beside the attackers' full contexts" as $VICTIM $tool victim
	kernel_verbs
	for _k in $_held; do
		release "quota-$_k" "quota $_k (the attacker, uid $ATTACKER)"
	done
}

# ---- ctx -----------------------------------------------------------------------------

part_ctx() {
	_free=$((lim_ctx - $(hwc res_uctx)))
	nofile=$((2 * lim_ctx + 64))	# a context costs two files
	hold ctx $ATTACKER --limit "$_free" quota ctx
	_ready=$?
	nofile=1024
	if [ "$_ready" = 0 ]; then
		as $VICTIM $tool victim > "$w/ctx-victim.out" 2>&1
		_vrc=$?
		sed 's/^/#   victim> /' "$w/ctx-victim.out"
		check "ctx: with all $lim_ctx contexts taken the victim's ibv_open_device fails with ENOMEM" \
			sh -c "[ $_vrc -ne 0 ] && grep -q 'ibv_open_device.*Cannot allocate memory' '$w/ctx-victim.out'"
		kernel_verbs
	else
		fail "ctx: the attacker never got ready"
	fi
	release ctx "quota ctx (the attacker, uid $ATTACKER)"
	part_ctx_cgroup
}

# The rdma cgroup controller limits a user's contexts instead.
part_ctx_cgroup() {
	_cg=/sys/fs/cgroup
	[ -e "$_cg/cgroup.controllers" ] || mount -t cgroup2 none "$_cg" 2>/dev/null
	if ! grep -qw rdma "$_cg/cgroup.controllers" 2>/dev/null; then
		echo "# skip: ctx: the kernel has no rdma cgroup controller"
		return 0
	fi
	echo +rdma > "$_cg/cgroup.subtree_control"
	mkdir -p "$_cg/iso-attacker"
	echo "$QRNIC_IBDEV hca_handle=4" > "$_cg/iso-attacker/rdma.max"
	cgroup=$_cg/iso-attacker nofile=256
	hold cg $ATTACKER --limit 4 quota ctx-cgroup
	_ready=$?
	cgroup= nofile=1024
	if [ "$_ready" = 0 ]; then
		echo "# rdma.current of the attacker's cgroup: $(cat "$_cg/iso-attacker/rdma.current")"
		run_tap "victim beside the attacker's cgroup of 4 contexts" as $VICTIM $tool victim
	else
		fail "ctx: the attacker in the rdma cgroup never got ready"
	fi
	release cg "quota ctx-cgroup (the attacker, uid $ATTACKER, rdma.max hca_handle=4)"
	rmdir "$_cg/iso-attacker"
}

# ---- xrc -----------------------------------------------------------------------------

part_xrc() {
	_q0=$(hwc ctx_over_quota)
	rm -f "$w/xrcd"
	hold xrcd $ATTACKER --xrcd "$w/xrcd" --limit "$lim_pd" quota xrcd ||
		{ fail "xrc: the domains' attacker never got ready"; cat "$w/xrcd.out"; }
	hold xtgt $ATTACKER --xrcd "$w/xrcd" --limit "$lim_qp" quota xrc-tgt ||
		{ fail "xrc: the XRC_TGT attacker never got ready"; cat "$w/xtgt.out"; }
	set -- $(cat "$w/xtgt.ready" 2>/dev/null)
	_q1=$(hwc ctx_over_quota)
	check "xrc: ctx_over_quota moved by the XRC_TGT attacker's refusals only (${4:-?}: $_q0 -> $_q1)" \
		test "$((_q1 - _q0))" = "${4:-x}"
	echo "# with the attackers' domains and XRC_TGT QPs held: $(counts)"
	run_tap "victim beside the XRC attackers" as $VICTIM $tool victim
	run_tap "victim's XRC objects beside the XRC attackers" as $VICTIM $tool victim-xrc
	kernel_verbs
	_u1=$(hwc res_uctx) _qp=$(hwc res_qp)
	release xrcd "quota xrcd (the attacker, uid $ATTACKER)"
	check "xrc: the domain's owner exited; its device context stays while the shared domain's XRC_TGT QPs count against it ($_u1 contexts)" \
		test "$(hwc res_uctx)" = "$_u1"
	check "xrc: the XRC_TGT QPs of the shared domain still exist ($_qp QPs)" test "$(hwc res_qp)" = "$_qp"
	release xtgt "quota xrc-tgt (the attacker, uid $ATTACKER, another process's domain)"
}

dmesg -C
for part in $parts; do
	echo "# $part"
	_t0=$(date +%s)
	"part_$part"
	part_end "$part"
	echo "# $part: $(($(date +%s) - _t0)) s"
done
finish
