/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * qrnic hardware interface: the single definition shared by the QEMU device
 * model, the Linux driver and the rdma-core provider.  docs/hardware.md
 * describes the semantics; this file is the layout.
 *
 * All multi-byte fields in guest memory and in BARs are little endian.
 * The header uses only fixed-width types so it compiles in the kernel
 * (linux/types.h), in QEMU and in user space (stdint.h); the includer
 * provides the types.
 */
#ifndef QRNIC_HW_H
#define QRNIC_HW_H

/* ---- PCI identity -------------------------------------------------------- */
#define QRNIC_PCI_VENDOR_ID		0x1b36	/* Red Hat, QEMU virtual devices */
#define QRNIC_PCI_DEVICE_ID		0x0130	/* experimental, not registered */
#define QRNIC_PCI_SUBSYS_VENDOR_ID	0x1b36
#define QRNIC_PCI_SUBSYS_ID		0x0001
#define QRNIC_PCI_REVISION		0x01
#define QRNIC_PCI_CLASS			0x0200	/* Ethernet controller */

/* ---- BARs ---------------------------------------------------------------- */
#define QRNIC_BAR_REGS			0	/* registers + MSI-X */
#define QRNIC_BAR_DB			2	/* doorbell pages */
#define QRNIC_BAR_QMEM			4	/* RAM-backed queue memory */

#define QRNIC_BAR0_SIZE			0x4000
#define QRNIC_MSIX_TABLE_OFF		0x2000
#define QRNIC_MSIX_PBA_OFF		0x3000
#define QRNIC_NUM_MSIX			16	/* vector 0: admin + async EQ */

#define QRNIC_DB_PAGE_SIZE		4096
#define QRNIC_QMEM_PAGE_SIZE		4096

/* ---- BAR0 registers (32-bit, little endian) ------------------------------ */
#define QRNIC_REG_ID			0x000	/* reads QRNIC_ID_MAGIC */
#define QRNIC_REG_VERSION		0x004	/* major << 16 | minor */
#define QRNIC_REG_CAP0			0x008	/* QRNIC_CAP0_* */
#define QRNIC_REG_CAP1			0x00c	/* reserved, reads 0 */
#define QRNIC_REG_NUM_MSIX		0x010
#define QRNIC_REG_DB_PAGES		0x014	/* doorbell pages in BAR2 */
#define QRNIC_REG_QMEM_PAGES		0x018	/* 4 KiB pages in BAR4 */
#define QRNIC_REG_AQ_MAX_LOG		0x01c	/* max log2 admin queue depth */

#define QRNIC_REG_CTRL			0x040	/* QRNIC_CTRL_* */
#define QRNIC_REG_STATUS		0x044	/* QRNIC_STATUS_*, read only */
#define QRNIC_REG_INIT_ERR		0x048	/* QRNIC_INIT_ERR_* when FATAL */
#define QRNIC_REG_INTR_MASK		0x04c	/* bit n set: vector n masked */

#define QRNIC_REG_MAC_LO		0x050	/* MAC bytes 0..3 (byte 0 in bits 7:0) */
#define QRNIC_REG_MAC_HI		0x054	/* MAC bytes 4..5 */

#define QRNIC_REG_AQ_SQ_BASE_LO		0x060	/* admin command ring, 64 B entries */
#define QRNIC_REG_AQ_SQ_BASE_HI		0x064
#define QRNIC_REG_AQ_CQ_BASE_LO		0x068	/* admin completion ring, 32 B entries */
#define QRNIC_REG_AQ_CQ_BASE_HI		0x06c
#define QRNIC_REG_AQ_LOG_DEPTH		0x070	/* both rings: 1 << n entries */
#define QRNIC_REG_AQ_DB			0x074	/* write: command producer index */
#define QRNIC_REG_AQ_CQ_CI		0x078	/* write: completion consumer index */

#define QRNIC_REG_STAT_RX_DROP		0x080	/* RoCE frames dropped by the engine */
#define QRNIC_REG_STAT_BAD_DB		0x084	/* doorbells rejected */

#define QRNIC_ID_MAGIC			0x51524e49	/* "QRNI" */
#define QRNIC_VERSION_MAJOR		1
#define QRNIC_VERSION_MINOR		0

#define QRNIC_CAP0_ETH			(1u << 0)
#define QRNIC_CAP0_ROCE_V2		(1u << 1)
#define QRNIC_CAP0_RC			(1u << 2)

#define QRNIC_CTRL_RESET		(1u << 0)	/* self clearing */
#define QRNIC_CTRL_ENABLE		(1u << 1)

#define QRNIC_STATUS_READY		(1u << 0)
#define QRNIC_STATUS_FATAL		(1u << 1)
#define QRNIC_STATUS_LINK_UP		(1u << 2)

#define QRNIC_INIT_ERR_NONE		0
#define QRNIC_INIT_ERR_AQ_DEPTH		1	/* log depth 0 or above AQ_MAX_LOG */
#define QRNIC_INIT_ERR_AQ_ALIGN		2	/* ring base not 64 B aligned */

/* ---- BAR2 doorbell page layout (64-bit writes) -------------------------- */
/*
 * Page 0 belongs to the kernel driver, pages 1.. are handed out one per user
 * context by QRNIC_CMD_ALLOC_UCTX.  A queue doorbell is accepted only on the
 * page that owns the queue.
 */
#define QRNIC_DB_SQ			0x000	/* qpn | (u64)sq_pi << 32 */
#define QRNIC_DB_RQ			0x008	/* qpn | (u64)rq_pi << 32 */
#define QRNIC_DB_CQ			0x010	/* cqn | flags | (u64)cq_ci << 32 */
#define QRNIC_DB_EQ			0x018	/* eqn | flags | (u64)eq_ci << 32 */
#define QRNIC_DB_ETH_TX			0x020	/* page 0 only: tx producer index */
#define QRNIC_DB_ETH_RX			0x028	/* page 0 only: rx producer index */

#define QRNIC_DB_QN_MASK		0x00ffffffu
#define QRNIC_DB_ARM			(1u << 24)	/* CQ: next, EQ: re-arm */
#define QRNIC_DB_ARM_SOLICITED		(1u << 25)	/* CQ: solicited only */

/* ---- Admin queue --------------------------------------------------------- */
enum qrnic_cmd_opcode {
	QRNIC_CMD_QUERY_DEVICE		= 0x01,
	QRNIC_CMD_CREATE_EQ		= 0x02,
	QRNIC_CMD_DESTROY_EQ		= 0x03,
	QRNIC_CMD_ETH_SETUP		= 0x04,
	QRNIC_CMD_ETH_TEARDOWN		= 0x05,
	QRNIC_CMD_SET_MAC		= 0x06,
	QRNIC_CMD_SET_MTU		= 0x07,
	QRNIC_CMD_ADD_GID		= 0x08,
	QRNIC_CMD_DEL_GID		= 0x09,
	QRNIC_CMD_ALLOC_UCTX		= 0x0a,
	QRNIC_CMD_DEALLOC_UCTX		= 0x0b,
	QRNIC_CMD_ALLOC_PD		= 0x0c,
	QRNIC_CMD_DEALLOC_PD		= 0x0d,
	QRNIC_CMD_QUERY_RES		= 0x0e,
	QRNIC_CMD_MAX
};

enum qrnic_cmd_status {
	QRNIC_ST_OK			= 0x00,
	QRNIC_ST_BAD_OPCODE		= 0x01,	/* unknown opcode */
	QRNIC_ST_BAD_PARAM		= 0x02,	/* a field is out of range */
	QRNIC_ST_NO_RESOURCES		= 0x03,	/* table full */
	QRNIC_ST_BAD_HANDLE		= 0x04,	/* object does not exist */
	QRNIC_ST_BAD_STATE		= 0x05,	/* object busy or wrong state */
	QRNIC_ST_DMA_ERROR		= 0x06,	/* guest address not accessible */
};

/* 64-byte command entry; the union carries the opcode's arguments. */
struct qrnic_cmd {
	uint8_t  opcode;
	uint8_t  rsvd0;
	uint16_t cookie;	/* echoed in the completion */
	uint32_t rsvd1;
	union {
		uint8_t raw[56];
		struct {
			uint64_t resp_addr;	/* DMA: struct qrnic_dev_attr */
		} query_device;
		struct {
			uint64_t base;		/* ring of struct qrnic_eqe */
			uint8_t  log_depth;	/* 1..QRNIC_EQ_MAX_LOG */
			uint8_t  flags;		/* QRNIC_EQ_ASYNC */
			uint16_t vector;	/* MSI-X vector */
		} create_eq;			/* result0: eqn */
		struct {
			uint32_t eqn;
		} destroy_eq;
		struct {
			uint64_t tx_base;	/* ring of struct qrnic_eth_desc */
			uint64_t rx_base;
			uint8_t  tx_log_depth;	/* 1..QRNIC_ETH_MAX_LOG */
			uint8_t  rx_log_depth;
			uint16_t vector;	/* MSI-X vector for tx and rx */
			uint32_t rsvd;
		} eth_setup;
		struct {
			uint8_t  mac[6];
		} set_mac;
		struct {
			uint32_t mtu;		/* 68..QRNIC_MAX_MTU */
		} set_mtu;
		struct {
			uint32_t index;		/* < gid_tbl_len */
			uint32_t type;		/* QRNIC_GID_TYPE_* */
			uint8_t  gid[16];
		} add_gid;
		struct {
			uint32_t index;
		} del_gid;
		struct {
			uint32_t uctx;
		} dealloc_uctx;
		struct {
			uint32_t uctx;		/* owning context, 0: kernel */
		} alloc_pd;			/* result0: pdn */
		struct {
			uint32_t pdn;
		} dealloc_pd;
		struct {
			uint64_t resp_addr;	/* DMA: struct qrnic_res_counts */
		} query_res;
	};
};

/* 32-byte completion entry, written by the device. */
struct qrnic_cqe_admin {
	uint16_t cookie;
	uint8_t  status;	/* enum qrnic_cmd_status */
	uint8_t  opcode;
	uint32_t result0;	/* opcode specific (new handle) */
	uint32_t result1;	/* opcode specific */
	uint32_t rsvd[4];
	uint32_t flags;		/* QRNIC_ADMIN_CQE_PHASE */
};

#define QRNIC_ADMIN_CQE_PHASE		(1u << 0)
#define QRNIC_AQ_MAX_LOG		8

/*
 * ALLOC_UCTX: result0 = context id, result1 = its doorbell page index in
 * BAR2.  DEALLOC_UCTX fails with BAD_STATE while the context owns objects.
 */

struct qrnic_dev_attr {
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t fw_version;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_inline;
	uint32_t gid_tbl_len;
	uint32_t max_uctx;
	uint32_t max_mtu;
	uint32_t num_eq;
	uint32_t rsvd[17];
};

struct qrnic_res_counts {
	uint32_t uctx;
	uint32_t pd;
	uint32_t eq;
	uint32_t gid;
	uint32_t qp;
	uint32_t cq;
	uint32_t mr;
	uint32_t rsvd[9];
};

#define QRNIC_GID_TYPE_ROCE_V2		2
#define QRNIC_MAX_MTU			9000

/* ---- Event queues -------------------------------------------------------- */
/* 16-byte event entry; the phase bit flips each time the ring wraps. */
struct qrnic_eqe {
	uint8_t  type;		/* QRNIC_EVENT_* */
	uint8_t  rsvd[3];
	uint32_t data0;		/* link: 1 up / 0 down; cq: cqn; qp: qpn */
	uint32_t data1;
	uint32_t flags;		/* QRNIC_EQE_PHASE */
};

#define QRNIC_EQE_PHASE			(1u << 0)
#define QRNIC_EQ_MAX_LOG		12
#define QRNIC_EQ_ASYNC			(1u << 0)	/* receives async events */

enum qrnic_event_type {
	QRNIC_EVENT_LINK		= 1,
	QRNIC_EVENT_CQ			= 2,	/* completion event for data0 */
	QRNIC_EVENT_QP_FATAL		= 3,
};

/* ---- Ethernet rings ------------------------------------------------------ */
/*
 * Both rings hold 16-byte descriptors in guest RAM.  The driver fills a
 * descriptor, then writes the new producer index (free running, 16 bit) to
 * QRNIC_DB_ETH_TX/RX on doorbell page 0.  The device consumes descriptors in
 * order and writes each one back with QRNIC_ETH_DONE set (and for RX the
 * received length), then raises the ring's vector.
 */
struct qrnic_eth_desc {
	uint64_t addr;
	uint16_t len;		/* TX: frame length; RX: buffer size, then length */
	uint16_t flags;		/* QRNIC_ETH_* */
	uint32_t rsvd;
};

#define QRNIC_ETH_DONE			(1u << 0)
#define QRNIC_ETH_ERR			(1u << 1)	/* TX: bad length / DMA */
#define QRNIC_ETH_MAX_LOG		12
#define QRNIC_ETH_MAX_FRAME		(QRNIC_MAX_MTU + 18)

/* ---- RoCEv2 -------------------------------------------------------------- */
#define QRNIC_ROCE_UDP_PORT		4791

#endif /* QRNIC_HW_H */
