#!/bin/sh
# Programs that connect through the RDMA connection manager (rdma_cm: CM
# MADs on the GSI QP, QP 1), each with guest 1 serving, then guest 0:
# rping with data checks, ucmatose (RC), udaddy (UD through rdma_cm) and
# ib_write_bw -R / ib_send_bw -R.  Both sides must exit 0 and print what
# the program prints on success.
#   cm.sh [TEST...]   default: all of   rping ucmatose udaddy write_bw send_bw
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "cm needs two guests"; finish; }
rdma_gid || finish
peer=${QRNIC_PEER_IPS%% *}

# cm K TEST SERVER
cm() {
	k=$1 test=$2 server=$3 port=$((18900 + $1))
	out=/tmp/cm-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="$test through rdma_cm, server g$server ($role g$QRNIC_IDX $QRNIC_IBDEV)"
	case "$test" in
	rping)
		srv="rping -s -v -V -C 100 -S 4096 -a $QRNIC_IP -p $port"
		cli="rping -c -v -V -C 100 -S 4096 -a $peer -p $port"
		# -v prints every ping the client sends back; -V checks the data.
		want="^(server )?ping data: rdma-ping-99: "
		;;
	ucmatose)
		srv="ucmatose -b $QRNIC_IP -p $port -C 100"
		cli="ucmatose -s $peer -p $port -C 100"
		want="^test complete"
		;;
	udaddy)
		# udaddy always uses port 7174 (its -p is the port space).
		port=7174
		srv="udaddy -b $QRNIC_IP"
		cli="udaddy -s $peer"
		want="^test complete"
		;;
	write_bw|send_bw)
		srv="ib_$test -d $QRNIC_IBDEV -R -F -n 100 -s 65536 -p $port"
		cli="ib_$test -d $QRNIC_IBDEV -R -F -n 100 -s 65536 -p $port $peer"
		want="^ *65536 +100 "
		;;
	esac
	cm_run "cm-$k" "$server" "$port" "$out" "$srv" "$cli"
	rc=$?
	if [ "$rc" -eq 0 ] && { [ "$role" = server ] && [ "${test%_bw}" != "$test" ] ||
		grep -Eq "$want" "$out"; } &&
		! grep -Eiq 'mismatch|error|fail|couldn' "$out"; then
		pass "$desc: exit 0$( [ "$role" = client ] && echo ", $(grep -Ec 'ping data|^test complete|^ *65536 +100 ' "$out") result line(s)")"
	else
		fail "$desc: status $rc, want /$want/ and no error"
		sed 's/^/    /' "$out" | tail -n 30
	fi
}

k=0
for t in ${*:-rping ucmatose udaddy write_bw send_bw}; do
	for server in 1 0; do
		cm "$k" "$t" "$server"
		barrier "cm-done-$k" 300
		k=$((k + 1))
	done
done
finish
