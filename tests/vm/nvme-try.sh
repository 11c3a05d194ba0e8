#!/bin/sh
# NVMe over RDMA in a few commands (README): guest 1 exports a RAM disk with
# the kernel target, guest 0 connects, writes and reads it.
#   tests/vm/run-vms qrnic qrnic -- tests/vm/nvme-try.sh
if [ "$QRNIC_IDX" = 1 ]; then   # the target: a 128 MiB RAM disk over nvmet-rdma
    modprobe brd rd_nr=1 rd_size=131072 && modprobe nvmet_rdma
    mount -t configfs none /sys/kernel/config; cd /sys/kernel/config/nvmet
    mkdir subsystems/try && echo 1 > subsystems/try/attr_allow_any_host
    mkdir subsystems/try/namespaces/1 && cd subsystems/try/namespaces/1
    echo /dev/ram0 > device_path && echo 1 > enable && cd ../../../..
    mkdir ports/1 && cd ports/1 && echo rdma > addr_trtype && echo ipv4 > addr_adrfam
    echo "$QRNIC_IP" > addr_traddr && echo 4420 > addr_trsvcid
    ln -s /sys/kernel/config/nvmet/subsystems/try subsystems/try
    touch "$QRNIC_SHARE/up"; while [ ! -e "$QRNIC_SHARE/done" ]; do sleep 1; done
else                            # the host: connect, list, write, read
    while [ ! -e "$QRNIC_SHARE/up" ]; do sleep 1; done
    modprobe nvme_rdma
    nvme connect -t rdma -a "${QRNIC_PEER_IPS%% *}" -s 4420 -n try && sleep 1
    nvme list
    dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=64 oflag=direct
    dd if=/dev/nvme0n1 of=/dev/null bs=1M count=64 iflag=direct
    nvme disconnect -n try; touch "$QRNIC_SHARE/done"
fi
