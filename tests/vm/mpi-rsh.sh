#!/bin/sh
# mpi-rsh.sh [OPTION...] HOST COMMAND...: Open MPI's ssh, between guests.
# mpirun (PRTE_MCA_plm_ssh_agent) starts its daemon on HOST with it: the
# command goes to HOST's clients.sh through the shared directory, under the
# name QRNIC_MPI_TAG, and this returns when it has run there, with its
# status.  The guests have no ssh; this is the only remote start they need.
. "$(dirname "$0")/lib.sh"

while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "mpi-rsh: usage: mpi-rsh.sh HOST COMMAND..." >&2; exit 2; }
[ -n "${QRNIC_MPI_TAG:-}" ] || { echo "mpi-rsh: QRNIC_MPI_TAG is not set" >&2; exit 2; }
shift
printf '%s\n' "$*" > "$QRNIC_SHARE/$QRNIC_MPI_TAG.cmd.tmp"
mv "$QRNIC_SHARE/$QRNIC_MPI_TAG.cmd.tmp" "$QRNIC_SHARE/$QRNIC_MPI_TAG.cmd"
wait_for "$QRNIC_MPI_TAG.done" 600 ||
	{ echo "mpi-rsh: the command never finished on the peer" >&2; exit 255; }
read -r status < "$QRNIC_SHARE/$QRNIC_MPI_TAG.done"
exit "$status"
