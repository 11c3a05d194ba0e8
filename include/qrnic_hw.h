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

/*
 * Field types: little endian (qrnic_le*) and network order (qrnic_be32)
 * values.  The kernel sees them as __le and __be types, so sparse checks
 * every access converts; the device model and the provider, which read
 * and write them with their own byte-order helpers, as fixed-width
 * integers.
 */
#ifdef __KERNEL__
typedef __le16 qrnic_le16;
typedef __le32 qrnic_le32;
typedef __le64 qrnic_le64;
typedef __be32 qrnic_be32;
#else
typedef uint16_t qrnic_le16;
typedef uint32_t qrnic_le32;
typedef uint64_t qrnic_le64;
typedef uint32_t qrnic_be32;
#endif

/* Every structure the device and software share has its size fixed here. */
#define QRNIC_HW_SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), #type " size")
/* Two fields at the same place, so one reader or writer serves both. */
#define QRNIC_HW_SAME_PLACE(type, a, b) \
	_Static_assert(__builtin_offsetof(struct type, a) == \
		       __builtin_offsetof(struct type, b), #a " at " #b)

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
#define QRNIC_CAP0_RC			(1u << 2)	/* RC queue pairs, CQs, MRs */
#define QRNIC_CAP0_ATOMIC		(1u << 3)	/* 8-byte atomics (HCA scope) */
#define QRNIC_CAP0_UD			(1u << 4)	/* UD QPs and the GSI QP */
#define QRNIC_CAP0_SRQ			(1u << 5)	/* shared receive queues */
#define QRNIC_CAP0_UC			(1u << 6)	/* UC QPs */
#define QRNIC_CAP0_MCAST		(1u << 7)	/* UD multicast groups */
#define QRNIC_CAP0_RESIZE_CQ		(1u << 8)	/* RESIZE_CQ */
#define QRNIC_CAP0_MW			(1u << 9)	/* memory windows 1, 2B */
#define QRNIC_CAP0_FAST_REG		(1u << 10)	/* ALLOC_MR, REG_MR WQE,
							 * LOCAL_INV, SEND_INV
							 */
#define QRNIC_CAP0_FLUSH		(1u << 11)	/* RDMA FLUSH (global) */
#define QRNIC_CAP0_ATOMIC_WRITE		(1u << 12)	/* RDMA ATOMIC WRITE */
#define QRNIC_CAP0_SRQ_RESIZE		(1u << 13)	/* MODIFY_SRQ RESIZE */
#define QRNIC_CAP0_REREG_MR		(1u << 14)	/* REREG_MR */
#define QRNIC_CAP0_XRC			(1u << 15)	/* XRC SRQs, XRC_INI and
							 * XRC_TGT QPs
							 */

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
 * context by QRNIC_CMD_ALLOC_UCTX (the context id is its page index).  A
 * queue doorbell is accepted only on the page of the context owning it.
 */
#define QRNIC_DB_SQ			0x000	/* qpn | (u64)sq_pi << 32 (16-bit pi) */
#define QRNIC_DB_RQ			0x008	/* qpn | (u64)rq_pi << 32 (16-bit pi) */
#define QRNIC_DB_CQ			0x010	/* cqn | ARM* | (u64)cq_ci << 32 (32-bit ci) */
#define QRNIC_DB_EQ			0x018	/* eqn | (u64)eq_ci << 32 */
#define QRNIC_DB_ETH_TX			0x020	/* page 0 only: tx producer index */
#define QRNIC_DB_ETH_RX			0x028	/* page 0 only: rx producer index */
#define QRNIC_DB_SRQ			0x030	/* srqn | (u64)srq_pi << 32 */

#define QRNIC_DB_QN_MASK		0x00ffffffu
#define QRNIC_DB_ARM			(1u << 24)	/* CQ: next completion */
#define QRNIC_DB_ARM_SOLICITED		(1u << 25)	/* CQ: solicited only */

/* ---- Admin queue --------------------------------------------------------- */
/*
 * The admin commands, one row each: X(NAME, opcode, name, creates).
 * QRNIC_CMD_<NAME> is opcode; opcodes run from 1, in order, without a gap.
 * name is NAME in lower case (struct qrnic_cmd's member for the arguments,
 * where the command has one of its own).  creates is the kind of object
 * whose handle result0 returns (KEY: a region's or a window's key), or NONE.
 */
#define QRNIC_CMD_LIST(X)						\
	X(QUERY_DEVICE,		0x01,	query_device,	NONE)		\
	X(CREATE_EQ,		0x02,	create_eq,	EQ)		\
	X(DESTROY_EQ,		0x03,	destroy_eq,	NONE)		\
	X(ETH_SETUP,		0x04,	eth_setup,	NONE)		\
	X(ETH_TEARDOWN,		0x05,	eth_teardown,	NONE)		\
	X(SET_MAC,		0x06,	set_mac,	NONE)		\
	X(SET_MTU,		0x07,	set_mtu,	NONE)		\
	X(ADD_GID,		0x08,	add_gid,	NONE)		\
	X(DEL_GID,		0x09,	del_gid,	NONE)		\
	X(ALLOC_UCTX,		0x0a,	alloc_uctx,	UCTX)		\
	X(DEALLOC_UCTX,		0x0b,	dealloc_uctx,	NONE)		\
	X(ALLOC_PD,		0x0c,	alloc_pd,	PD)		\
	X(DEALLOC_PD,		0x0d,	dealloc_pd,	NONE)		\
	X(QUERY_RES,		0x0e,	query_res,	NONE)		\
	X(CREATE_CQ,		0x0f,	create_cq,	CQ)		\
	X(DESTROY_CQ,		0x10,	destroy_cq,	NONE)		\
	X(REG_MR,		0x11,	reg_mr,		KEY)		\
	X(DEREG_MR,		0x12,	dereg_mr,	NONE)		\
	X(CREATE_QP,		0x13,	create_qp,	QP)		\
	X(MODIFY_QP,		0x14,	modify_qp,	NONE)		\
	X(QUERY_QP,		0x15,	query_qp,	NONE)		\
	X(DESTROY_QP,		0x16,	destroy_qp,	NONE)		\
	X(QUERY_STATS,		0x17,	query_stats,	NONE)		\
	X(CREATE_SRQ,		0x18,	create_srq,	SRQ)		\
	X(MODIFY_SRQ,		0x19,	modify_srq,	NONE)		\
	X(QUERY_SRQ,		0x1a,	query_srq,	NONE)		\
	X(DESTROY_SRQ,		0x1b,	destroy_srq,	NONE)		\
	X(ATTACH_MCAST,		0x1c,	attach_mcast,	NONE)		\
	X(DETACH_MCAST,		0x1d,	detach_mcast,	NONE)		\
	X(RESIZE_CQ,		0x1e,	resize_cq,	NONE)		\
	X(ALLOC_MW,		0x1f,	alloc_mw,	KEY)		\
	X(DEALLOC_MW,		0x20,	dealloc_mw,	NONE)		\
	X(ALLOC_MR,		0x21,	alloc_mr,	KEY)		\
	X(REREG_MR,		0x22,	rereg_mr,	NONE)

#define QRNIC_CMD_ENUM(name, opcode, ...)	QRNIC_CMD_##name = (opcode),

enum qrnic_cmd_opcode {
	QRNIC_CMD_LIST(QRNIC_CMD_ENUM)
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
	QRNIC_ST_OVER_QUOTA		= 0x07,	/* the owning context's limit */
};

/*
 * A guest memory buffer made of pages of 1 << page_shift bytes, as commands
 * pass it (CREATE_CQ, REG_MR).  The device copies the page addresses when
 * the command runs and never reads the list again.
 *   QRNIC_PBL_CONTIG  addr is the first byte of npages contiguous pages
 *   QRNIC_PBL_LEVEL1  addr -> npages little-endian u64 page addresses
 *                     (a contiguous array)
 *   QRNIC_PBL_LEVEL2  addr -> ceil(npages / 512) u64 addresses of 4 KiB
 *                     pages, each holding up to 512 page addresses
 *   QRNIC_PBL_PHYS    REG_MR only, kernel PDs only: iova is the DMA
 *                     address itself, no pages (npages 0, addr 0)
 * Page addresses must be aligned to the page size.
 */
struct qrnic_pbl {
	qrnic_le64 addr;
	qrnic_le32 npages;
	uint8_t  levels;	/* QRNIC_PBL_* */
	uint8_t  page_shift;	/* QRNIC_MIN/MAX_PAGE_SHIFT */
	qrnic_le16 rsvd;
};

#define QRNIC_PBL_SIZE		16
QRNIC_HW_SIZE(qrnic_pbl, QRNIC_PBL_SIZE);

#define QRNIC_PBL_CONTIG		0
#define QRNIC_PBL_LEVEL1		1
#define QRNIC_PBL_LEVEL2		2
#define QRNIC_PBL_PHYS			3
#define QRNIC_PBL_PER_PAGE		512	/* u64 entries in a 4 KiB page */
#define QRNIC_MIN_PAGE_SHIFT		12
#define QRNIC_MAX_PAGE_SHIFT		30

/* 64-byte command entry; the union carries the opcode's arguments. */
struct qrnic_cmd {
	uint8_t  opcode;
	uint8_t  rsvd0;
	qrnic_le16 cookie;	/* echoed in the completion */
	qrnic_le32 rsvd1;
	union {
		uint8_t raw[56];
		struct {
			qrnic_le64 resp_addr;	/* DMA: struct qrnic_dev_attr */
		} query_device;
		struct {
			qrnic_le64 base;	/* ring of struct qrnic_eqe */
			uint8_t  log_depth;	/* 1..QRNIC_EQ_MAX_LOG */
			uint8_t  flags;		/* QRNIC_EQ_ASYNC */
			qrnic_le16 vector;	/* MSI-X vector */
		} create_eq;			/* result0: eqn */
		struct {
			qrnic_le32 eqn;
		} destroy_eq;
		struct {
			qrnic_le64 tx_base;	/* ring of struct qrnic_eth_desc */
			qrnic_le64 rx_base;
			uint8_t  tx_log_depth;	/* 1..QRNIC_ETH_MAX_LOG */
			uint8_t  rx_log_depth;
			qrnic_le16 vector;	/* MSI-X vector for tx and rx */
			qrnic_le32 rsvd;
		} eth_setup;
		struct {
			uint8_t  mac[6];
		} set_mac;
		struct {
			qrnic_le32 mtu;		/* 68..QRNIC_MAX_MTU */
		} set_mtu;
		struct {
			qrnic_le32 index;	/* < gid_tbl_len */
			qrnic_le32 type;	/* QRNIC_GID_TYPE_* */
			uint8_t  gid[16];
		} add_gid;
		struct {
			qrnic_le32 index;
		} del_gid;
		struct {
			qrnic_le32 uctx;
		} dealloc_uctx;
		struct {
			qrnic_le32 uctx;	/* owning context, 0: kernel */
		} alloc_pd;			/* result0: pdn */
		struct {
			qrnic_le32 pdn;
		} dealloc_pd;
		struct {
			qrnic_le64 resp_addr;	/* DMA: struct qrnic_res_counts */
		} query_res;
		struct {
			struct qrnic_pbl pbl;	/* the CQ buffer (ring + record) */
			qrnic_le32 uctx;	/* owner, 0: kernel */
			qrnic_le32 eqn;		/* completion events go here */
			uint8_t  log_depth;	/* 1..QRNIC_CQ_MAX_LOG CQEs */
			uint8_t  rsvd[3];
		} create_cq;			/* result0: cqn */
		struct {
			qrnic_le32 cqn;
		} destroy_cq;
		struct {
			struct qrnic_pbl pbl;	/* pages of the region */
			qrnic_le64 iova;	/* first byte's virtual address */
			qrnic_le64 length;	/* bytes */
			qrnic_le32 pdn;
			qrnic_le32 access;	/* QRNIC_ACCESS_* */
		} reg_mr;			/* result0: key (lkey == rkey) */
		struct {
			qrnic_le32 key;		/* an ALLOC_MR region: any key
						 * byte (the index names it)
						 */
		} dereg_mr;			/* BAD_STATE while windows are
						 * bound to the region
						 */
		struct {
			qrnic_le32 pdn;
			uint8_t  type;		/* QRNIC_MW_TYPE_1 or _2 */
			uint8_t  rsvd[3];
		} alloc_mw;			/* result0: key (window unbound) */
		struct {
			qrnic_le32 key;		/* any key byte: the index names it */
		} dealloc_mw;			/* invalidates a bound window */
		struct {
			qrnic_le32 pdn;		/* a kernel PD */
			qrnic_le32 max_pages;	/* 1..max_fast_reg_pages */
		} alloc_mr;			/* result0: key (region invalid
						 * until a REG_MR WQE)
						 */
		struct {
			struct qrnic_pbl pbl;	/* reg_mr's layout: the region */
			qrnic_le64 iova;	/* described anew, page list, */
			qrnic_le64 length;	/* range, PD and rights, */
			qrnic_le32 pdn;		/* each checked as by REG_MR */
			qrnic_le32 access;
			qrnic_le32 key;		/* a REG_MR region's key; it
						 * keeps it
						 */
		} rereg_mr;			/* BAD_STATE while windows are
						 * bound to the region
						 */
		struct {
			qrnic_le32 pdn;
			qrnic_le32 send_cqn;
			qrnic_le32 recv_cqn;
			qrnic_le32 uctx;	/* owner, 0: kernel */
			qrnic_le32 sq_offset;	/* queue memory (BAR4) byte offsets, */
			qrnic_le32 rq_offset;	/* page aligned, see below */
			uint8_t  qp_type;	/* QRNIC_QPT_* */
			uint8_t  flags;		/* QRNIC_QP_SIG_ALL */
			uint8_t  log_sq_depth;	/* 0..QRNIC_QP_MAX_LOG WQEs */
			uint8_t  log_sq_stride;	/* QRNIC_SQ_MIN/MAX_LOG_STRIDE */
			uint8_t  log_rq_depth;	/* 0..QRNIC_QP_MAX_LOG WQEs */
			uint8_t  log_rq_stride;	/* QRNIC_RQ_MIN/MAX_LOG_STRIDE */
			uint8_t  rsvd[2];
			qrnic_le32 srqn;	/* receives from this SRQ, 0: own RQ
						 * (rq_offset, log_rq_* then 0)
						 */
			qrnic_le32 xrcd;	/* XRC_TGT: its XRC domain */
		} create_qp;			/* result0: qpn; XRC: see the
						 * QP section
						 */
		struct {
			qrnic_le32 qpn;
			qrnic_le32 attr_mask;	/* QRNIC_QP_ATTR_* to apply */
			qrnic_le64 attr_addr;	/* DMA: struct qrnic_qp_attr */
		} modify_qp;
		struct {
			qrnic_le32 qpn;
			qrnic_le32 rsvd;
			qrnic_le64 attr_addr;	/* DMA: struct qrnic_qp_attr, written */
		} query_qp;
		struct {
			qrnic_le32 qpn;
		} destroy_qp;
		struct {
			qrnic_le64 resp_addr;	/* DMA: struct qrnic_stats_resp */
		} query_stats;
		struct {
			qrnic_le32 pdn;
			qrnic_le32 uctx;	/* owner, 0: kernel */
			qrnic_le32 offset;	/* queue memory (BAR4), page aligned */
			uint8_t  log_depth;	/* 0..QRNIC_QP_MAX_LOG WQEs */
			uint8_t  log_stride;	/* QRNIC_RQ_MIN/MAX_LOG_STRIDE */
			qrnic_le16 rsvd;
			qrnic_le32 limit;	/* 0 or < depth: armed limit */
			qrnic_le32 xrcd;	/* nonzero: an XRC SRQ of this
						 * XRC domain, its receives
						 * completing on cqn
						 */
			qrnic_le32 cqn;		/* XRC only, else 0 */
		} create_srq;			/* result0: srqn */
		struct {
			qrnic_le32 srqn;
			qrnic_le32 limit;	/* MOD_LIMIT: arm at this (< depth) */
			qrnic_le32 mask;	/* QRNIC_SRQ_MOD_* */
			qrnic_le32 offset;	/* MOD_RESIZE: the new ring in queue
						 * memory, page aligned
						 */
			uint8_t  log_depth;	/* MOD_RESIZE: 0..QRNIC_QP_MAX_LOG */
			uint8_t  rsvd[3];
		} modify_srq;			/* see the QP section */
		struct {
			qrnic_le32 srqn;
		} query_srq;			/* result0: armed limit (0: none),
						 * result1: WQEs posted, not taken
						 */
		struct {
			qrnic_le32 srqn;
		} destroy_srq;			/* BAD_STATE while a QP uses it */
		struct {
			qrnic_le32 qpn;		/* a UD QP */
			qrnic_le32 rsvd;
			uint8_t  gid[16];	/* multicast: ff00::/8 or ::ffff:224/4 */
		} mcast;			/* ATTACH_MCAST, DETACH_MCAST */
		struct {
			struct qrnic_pbl pbl;	/* the new CQ buffer */
			qrnic_le32 cqn;
			uint8_t  log_depth;	/* 1..QRNIC_CQ_MAX_LOG */
			uint8_t  rsvd[3];
		} resize_cq;			/* result0: producer index at the
						 * switch, see the CQ section
						 */
	};
};

#define QRNIC_CMD_SIZE		64
QRNIC_HW_SIZE(qrnic_cmd, QRNIC_CMD_SIZE);
QRNIC_HW_SAME_PLACE(qrnic_cmd, reg_mr.pbl, rereg_mr.pbl);
QRNIC_HW_SAME_PLACE(qrnic_cmd, reg_mr.iova, rereg_mr.iova);
QRNIC_HW_SAME_PLACE(qrnic_cmd, reg_mr.length, rereg_mr.length);
QRNIC_HW_SAME_PLACE(qrnic_cmd, reg_mr.pdn, rereg_mr.pdn);
QRNIC_HW_SAME_PLACE(qrnic_cmd, reg_mr.access, rereg_mr.access);

/* 32-byte completion entry, written by the device. */
struct qrnic_cqe_admin {
	qrnic_le16 cookie;
	uint8_t  status;	/* enum qrnic_cmd_status */
	uint8_t  opcode;
	qrnic_le32 result0;	/* opcode specific (new handle) */
	qrnic_le32 result1;	/* opcode specific */
	qrnic_le32 rsvd[4];
	qrnic_le32 flags;	/* QRNIC_ADMIN_CQE_PHASE */
};

#define QRNIC_ACQE_SIZE		32
QRNIC_HW_SIZE(qrnic_cqe_admin, QRNIC_ACQE_SIZE);

#define QRNIC_ADMIN_CQE_PHASE		(1u << 0)
#define QRNIC_AQ_MAX_LOG		8

/*
 * ALLOC_UCTX: result0 = context id, result1 = its doorbell page index in
 * BAR2.  DEALLOC_UCTX fails with BAD_STATE while the context owns objects.
 *
 * What one user context may hold at once, each kind counted by the device
 * and refused beyond its limit with OVER_QUOTA (QUERY_DEVICE reports the
 * limits in ctx_max[]; the kernel, context 0, has none).  Regions and
 * windows share the key table; QMEM_PAGES counts the context's queue
 * memory pages (QPs and SRQs), MR_PAGES the page addresses its regions
 * hold.
 */
enum qrnic_ctx_res {
	QRNIC_CTX_PD,
	QRNIC_CTX_CQ,
	QRNIC_CTX_QP,
	QRNIC_CTX_SRQ,
	QRNIC_CTX_MR,
	QRNIC_CTX_MW,
	QRNIC_CTX_QMEM_PAGES,
	QRNIC_CTX_MR_PAGES,
	QRNIC_CTX_RES_COUNT
};

struct qrnic_dev_attr {
	qrnic_le64 max_mr_size;
	qrnic_le64 page_size_cap;	/* page sizes page lists may use (bit n: 2^n) */
	qrnic_le32 fw_version;
	qrnic_le32 max_qp;
	qrnic_le32 max_qp_wr;
	qrnic_le32 max_sge;
	qrnic_le32 max_cq;
	qrnic_le32 max_cqe;
	qrnic_le32 max_mr;
	qrnic_le32 max_pd;
	qrnic_le32 max_qp_rd_atom;
	qrnic_le32 max_qp_init_rd_atom;
	qrnic_le32 max_inline;
	qrnic_le32 gid_tbl_len;
	qrnic_le32 max_uctx;
	qrnic_le32 max_mtu;
	qrnic_le32 num_eq;
	qrnic_le32 max_mr_pages;	/* page addresses one MR may have */
	qrnic_le32 max_recv_sge;
	qrnic_le32 max_qp_qmem;	/* queue memory bytes one QP may use */
	qrnic_le32 max_mw;
	qrnic_le32 max_fast_reg_pages;	/* page list of one REG_MR WQE */
	qrnic_le32 ctx_max[QRNIC_CTX_RES_COUNT];	/* one user context's limits */
	qrnic_le32 max_srq;	/* 0 from a device before it: 1023 */
	qrnic_le32 rsvd[11 - QRNIC_CTX_RES_COUNT];
};

#define QRNIC_DEV_ATTR_SIZE	144
QRNIC_HW_SIZE(qrnic_dev_attr, QRNIC_DEV_ATTR_SIZE);

struct qrnic_res_counts {
	qrnic_le32 uctx;
	qrnic_le32 pd;
	qrnic_le32 eq;
	qrnic_le32 gid;
	qrnic_le32 qp;
	qrnic_le32 cq;
	qrnic_le32 mr;
	qrnic_le32 mr_pages;	/* page addresses held for all MRs */
	qrnic_le32 srq;
	qrnic_le32 mw;
	qrnic_le32 cq_pages;	/* page addresses held for all CQs */
	qrnic_le32 rsvd[5];
};

#define QRNIC_RES_COUNTS_SIZE	64
QRNIC_HW_SIZE(qrnic_res_counts, QRNIC_RES_COUNTS_SIZE);

/*
 * QUERY_STATS: the device's counters since reset, in this order.  The
 * driver shows them as hw counters (rdma statistic).
 */
enum qrnic_stat {
	QRNIC_STAT_TX_ROCE_PKTS,	/* RoCE frames sent */
	QRNIC_STAT_RX_ROCE_PKTS,	/* RoCE frames received */
	QRNIC_STAT_RX_ICRC_ERR,		/* dropped: bad ICRC */
	QRNIC_STAT_RX_BAD_PKT,		/* dropped: malformed or no such QP */
	QRNIC_STAT_RETRANS_PKTS,	/* requester retransmissions */
	QRNIC_STAT_ACK_TIMEOUTS,	/* retransmission timer expiries */
	QRNIC_STAT_SEQ_NAKS_RX,		/* PSN sequence error NAKs received */
	QRNIC_STAT_SEQ_NAKS_TX,
	QRNIC_STAT_RNR_NAKS_RX,		/* RNR NAKs received */
	QRNIC_STAT_RNR_NAKS_TX,
	QRNIC_STAT_DUP_REQS,		/* duplicate requests seen by responders */
	QRNIC_STAT_REM_ACCESS_ERRS,	/* access NAKs sent */
	QRNIC_STAT_CQ_OVERFLOWS,
	QRNIC_STAT_RX_QKEY_ERR,		/* UD dropped: Q_Key mismatch */
	QRNIC_STAT_RX_UD_NO_RQE,	/* UD dropped: no receive WQE posted */
	/* Fault injection (x-*-ppm properties): each _TX, then its _RX. */
	QRNIC_STAT_FAULT_DROP_TX,
	QRNIC_STAT_FAULT_DROP_RX,
	QRNIC_STAT_FAULT_DUP_TX,
	QRNIC_STAT_FAULT_DUP_RX,
	QRNIC_STAT_FAULT_REORDER_TX,
	QRNIC_STAT_FAULT_REORDER_RX,
	QRNIC_STAT_FAULT_CORRUPT_TX,
	QRNIC_STAT_FAULT_CORRUPT_RX,
	QRNIC_STAT_CTX_OVER_QUOTA,	/* commands refused with OVER_QUOTA */
	QRNIC_STAT_BACKLOG_DROP,	/* dropped: the frames held for the
					 * device (to itself, or arriving while
					 * it is busy) were too many
					 */
	QRNIC_STAT_COUNT
};

struct qrnic_stats_resp {
	qrnic_le64 v[QRNIC_STAT_COUNT];
};

#define QRNIC_STATS_RESP_SIZE	200
QRNIC_HW_SIZE(qrnic_stats_resp, QRNIC_STATS_RESP_SIZE);

#define QRNIC_GID_TYPE_ROCE_V2		2
#define QRNIC_MAX_MTU			9000

/* ---- Event queues -------------------------------------------------------- */
/* 16-byte event entry; the phase bit flips each time the ring wraps. */
struct qrnic_eqe {
	uint8_t  type;		/* QRNIC_EVENT_* */
	uint8_t  rsvd[3];
	qrnic_le32 data0;	/* link: 1 up / 0 down; cq: cqn; qp: qpn */
	qrnic_le32 data1;
	qrnic_le32 flags;	/* QRNIC_EQE_PHASE */
};

#define QRNIC_EQE_SIZE		16
QRNIC_HW_SIZE(qrnic_eqe, QRNIC_EQE_SIZE);

#define QRNIC_EQE_PHASE			(1u << 0)
#define QRNIC_EQ_MAX_LOG		12
#define QRNIC_EQ_ASYNC			(1u << 0)	/* receives async events */

enum qrnic_event_type {
	QRNIC_EVENT_LINK		= 1,
	QRNIC_EVENT_CQ			= 2,	/* completion event for data0 */
	QRNIC_EVENT_QP_FATAL		= 3,	/* async: data0 qpn, data1 its
						 * MODIFY_QP to RESETs so far
						 */
	QRNIC_EVENT_CQ_ERR		= 4,	/* async: data0 cqn overflowed */
	QRNIC_EVENT_SQ_DRAINED		= 5,	/* async: data0 qpn reached SQD */
	QRNIC_EVENT_SRQ_LIMIT		= 6,	/* async: data0 srqn fell below
						 * its armed limit (disarmed)
						 */
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
	qrnic_le64 addr;
	qrnic_le16 len;		/* TX: frame length; RX: buffer size, then length */
	qrnic_le16 flags;	/* QRNIC_ETH_* */
	qrnic_le32 rsvd;
};

#define QRNIC_ETH_DESC_SIZE	16
QRNIC_HW_SIZE(qrnic_eth_desc, QRNIC_ETH_DESC_SIZE);

#define QRNIC_ETH_DONE			(1u << 0)
#define QRNIC_ETH_ERR			(1u << 1)	/* TX: bad length / DMA */
#define QRNIC_ETH_MAX_LOG		12
#define QRNIC_ETH_MAX_FRAME		(QRNIC_MAX_MTU + 18)

/* ---- Completion queues --------------------------------------------------- */
/*
 * A CQ buffer holds 1 << log_depth 32-byte CQEs followed by a 64-byte
 * struct qrnic_cq_rec, in pages listed by the CREATE_CQ page list.  The
 * device writes CQE pi % depth with PHASE = 1 on the first pass through
 * the ring, 0 on the second, and so on; it writes the entry's first 28
 * bytes before the word holding the phase bit.  Software polls in memory
 * and stores its free running consumer index in the record; the device
 * reads the record only when the ring looks full.  A CQE that finds the
 * ring full is dropped, counted, and reported by QRNIC_EVENT_CQ_ERR.
 *
 * Arming: DB_CQ with QRNIC_DB_ARM (next completion) or QRNIC_DB_ARM |
 * QRNIC_DB_ARM_SOLICITED (next solicited or error completion) and the
 * consumer index.  An armed CQ posts one QRNIC_EVENT_CQ to its EQ on the
 * next matching CQE and disarms; arming with ARM alone while CQEs beyond
 * the given consumer index exist posts the event at once.
 *
 * RESIZE_CQ moves the CQ to a new buffer of 1 << log_depth CQEs.  Software
 * first writes its consumer index into the new buffer's record; the
 * device reads it, refuses (BAD_PARAM) a depth below the CQEs not yet
 * consumed, and from then on writes CQE pi at pi % new depth of the new
 * buffer with the new depth's phase.  result0 is pi at the switch: the
 * CQEs from the consumer index up to it are still in the old buffer, and
 * software copies them to their places in the new one (phase rewritten for
 * the new depth) before it polls there.  The device never reads phases:
 * before the command software also makes each entry of the new ring look
 * unwritten for the index it will hold next (PHASE = (i >> log_depth) & 1
 * for i from the consumer index on), as a zeroed ring does only while
 * those indexes are in an even pass.
 */
#define QRNIC_CQ_MAX_LOG		22
#define QRNIC_CQE_SIZE			32
#define QRNIC_CQ_REC_SIZE		64

struct qrnic_cqe {
	qrnic_le64 wr_id;
	qrnic_le32 byte_len;
	union {
		qrnic_be32 imm_data;	/* F_IMM: as on the wire (network order) */
		qrnic_le32 invalidate_rkey;	/* F_INV: the key invalidated */
	};
	qrnic_le32 qpn;		/* the QP it belongs to */
	qrnic_le16 wqe_idx;	/* free running index of the WQE it completes */
	uint8_t  opcode;	/* QRNIC_CQE_OP_* */
	uint8_t  status;	/* QRNIC_WC_* */
	uint8_t  flags;		/* QRNIC_CQE_F_* */
	uint8_t  vendor_err;	/* QRNIC_VERR_* for error statuses */
	qrnic_le16 rsvd;
	qrnic_le32 owner;	/* QRNIC_CQE_PHASE | src_qp << SRC_QP_SHIFT */
};

QRNIC_HW_SIZE(qrnic_cqe, QRNIC_CQE_SIZE);

/*
 * UD and GSI receive completions carry the sender's QP number in the upper
 * 24 bits of the owner word (written together with the phase bit), XRC
 * SRQ receive completions their SRQ's number.
 */
#define QRNIC_CQE_SRC_QP_SHIFT		8

struct qrnic_cq_rec {
	qrnic_le32 ci;		/* software's free running consumer index */
	qrnic_le32 rsvd[15];
};

QRNIC_HW_SIZE(qrnic_cq_rec, QRNIC_CQ_REC_SIZE);

#define QRNIC_CQE_PHASE			(1u << 0)
#define QRNIC_CQE_F_IMM			(1u << 0)	/* imm_data valid */
#define QRNIC_CQE_F_SOLICITED		(1u << 1)
#define QRNIC_CQE_F_SEND		(1u << 2)	/* completes a SQ WQE */
#define QRNIC_CQE_F_GRH			(1u << 3)	/* UD: buffer starts with a GRH */
#define QRNIC_CQE_F_IPV4		(1u << 4)	/* UD: it came over IPv4 */
#define QRNIC_CQE_F_SRQ			(1u << 5)	/* wqe_idx is an SRQ slot */
#define QRNIC_CQE_F_XRC			(1u << 7)	/* with F_SRQ, from an
							 * XRC SRQ: its srqn is
							 * in the owner word
							 * (where UD puts
							 * src_qp), qpn is the
							 * XRC_TGT QP's
							 */
#define QRNIC_CQE_F_INV			(1u << 6)	/* SEND_WITH_INV received:
							 * imm_data is the key it
							 * invalidated (little
							 * endian, not network:
							 * invalidate_rkey)
							 */

/* CQE opcodes: the values of enum ibv_wc_opcode / ib_wc_opcode. */
enum qrnic_cqe_opcode {
	QRNIC_CQE_OP_SEND		= 0,
	QRNIC_CQE_OP_RDMA_WRITE		= 1,
	QRNIC_CQE_OP_RDMA_READ		= 2,
	QRNIC_CQE_OP_COMP_SWAP		= 3,
	QRNIC_CQE_OP_FETCH_ADD		= 4,
	QRNIC_CQE_OP_BIND_MW		= 5,
	QRNIC_CQE_OP_LOCAL_INV		= 6,
	QRNIC_CQE_OP_FLUSH		= 8,
	QRNIC_CQE_OP_ATOMIC_WRITE	= 9,
	QRNIC_CQE_OP_REG_MR		= 10,	/* IB_WC_REG_MR's value differs
						 * between kernels: translated
						 */
	QRNIC_CQE_OP_RECV		= 128,
	QRNIC_CQE_OP_RECV_RDMA_IMM	= 129,
};

/* CQE status: the values of enum ibv_wc_status / ib_wc_status. */
enum qrnic_wc_status {
	QRNIC_WC_SUCCESS		= 0,
	QRNIC_WC_LOC_LEN_ERR		= 1,
	QRNIC_WC_LOC_QP_OP_ERR		= 2,
	QRNIC_WC_LOC_PROT_ERR		= 4,
	QRNIC_WC_WR_FLUSH_ERR		= 5,
	QRNIC_WC_MW_BIND_ERR		= 6,
	QRNIC_WC_BAD_RESP_ERR		= 7,
	QRNIC_WC_LOC_ACCESS_ERR		= 8,
	QRNIC_WC_REM_INV_REQ_ERR	= 9,
	QRNIC_WC_REM_ACCESS_ERR		= 10,
	QRNIC_WC_REM_OP_ERR		= 11,
	QRNIC_WC_RETRY_EXC_ERR		= 12,
	QRNIC_WC_RNR_RETRY_EXC_ERR	= 13,
	QRNIC_WC_FATAL_ERR		= 19,
	QRNIC_WC_GENERAL_ERR		= 21,
};

/* Why a WQE failed (CQE vendor_err), for diagnostics. */
enum qrnic_vendor_err {
	QRNIC_VERR_NONE			= 0,
	QRNIC_VERR_BAD_OPCODE		= 1,	/* unknown or unsupported opcode */
	QRNIC_VERR_BAD_SGE		= 2,	/* num_sge or inline length */
	QRNIC_VERR_BAD_LKEY		= 3,	/* no such MR, other PD */
	QRNIC_VERR_LKEY_ACCESS		= 4,	/* MR lacks the right */
	QRNIC_VERR_LKEY_BOUNDS		= 5,	/* SGE outside the MR */
	QRNIC_VERR_DMA			= 6,	/* guest memory not accessible */
	QRNIC_VERR_MSG_TOO_LONG		= 7,	/* message > 2^31 or RQE size */
	QRNIC_VERR_ALIGN		= 8,	/* atomic not 8-byte aligned */
	QRNIC_VERR_NAK			= 9,	/* peer NAKed, see status */
	QRNIC_VERR_RETRIES		= 10,	/* retry counter exhausted */
	QRNIC_VERR_FLUSH		= 11,	/* QP in error */
	QRNIC_VERR_BAD_AV		= 12,	/* UD: address vector invalid;
						 * XRC_INI: xrc_srqn over 24
						 * bits
						 */
	QRNIC_VERR_BAD_KEY_OP		= 13,	/* BIND_MW, REG_MR, LOCAL_INV:
						 * key, state, PD, range or
						 * rights do not allow it
						 */
};

/* ---- Refused guest actions (diagnostics) --------------------------------- */
/*
 * Why the device refused something the guest did, one row each:
 * X(QRNIC_GUEST_ERR_<NAME>, what, the two values reported).  The device
 * reports each refusal once by its cause (QEMU: LOG_GUEST_ERROR and a trace
 * event), whatever else it does (a status, an error CQE, a counter).
 */
#define QRNIC_GUEST_ERR_LIST(X)						\
	X(QRNIC_GUEST_ERR_DB_ACCESS,					\
	  "doorbell write not 8 bytes wide and aligned", "offset, size")	\
	X(QRNIC_GUEST_ERR_DB_PAGE,					\
	  "doorbell before the device is ready or on a page with no context", \
	  "page, offset")						\
	X(QRNIC_GUEST_ERR_DB_OFFSET,					\
	  "no such doorbell on this page", "page, offset")		\
	X(QRNIC_GUEST_ERR_DB_QUEUE,					\
	  "doorbell for a queue that does not exist, is not this page's or takes none now", \
	  "page, value")						\
	X(QRNIC_GUEST_ERR_DB_VALUE,					\
	  "doorbell value with reserved bits set", "page, value")	\
	X(QRNIC_GUEST_ERR_DB_INDEX,					\
	  "doorbell index past the ring or past what the device produced", \
	  "page, value")						\
	X(QRNIC_GUEST_ERR_AQ_DOORBELL,					\
	  "admin queue doorbell before the device is ready or past the ring", \
	  "register, index")						\
	X(QRNIC_GUEST_ERR_AQ_INIT,					\
	  "enabled with a bad admin queue depth or base", "INIT_ERR, log depth") \
	X(QRNIC_GUEST_ERR_COMMAND,					\
	  "admin command refused", "opcode, status")			\
	X(QRNIC_GUEST_ERR_WQE,						\
	  "work request completed in error for a fault of its own",	\
	  "QP number, vendor error")					\
	X(QRNIC_GUEST_ERR_DMA,						\
	  "guest memory not accessible", "address, length")

#define QRNIC_GUEST_ERR_ENUM(id, ...)	id,

enum qrnic_guest_err {
	QRNIC_GUEST_OK,
	QRNIC_GUEST_ERR_LIST(QRNIC_GUEST_ERR_ENUM)
	QRNIC_GUEST_ERR_MAX
};

/* ---- Memory regions -------------------------------------------------------- */
/* Access flags: the values of IB_ACCESS_* / IBV_ACCESS_*. */
#define QRNIC_ACCESS_LOCAL_WRITE	(1u << 0)
#define QRNIC_ACCESS_REMOTE_WRITE	(1u << 1)
#define QRNIC_ACCESS_REMOTE_READ	(1u << 2)
#define QRNIC_ACCESS_REMOTE_ATOMIC	(1u << 3)
#define QRNIC_ACCESS_MW_BIND		(1u << 4)	/* regions only */
#define QRNIC_ACCESS_FLUSH_GLOBAL	(1u << 8)	/* FLUSH target */
#define QRNIC_ACCESS_ALL		0x11fu
#define QRNIC_ACCESS_REMOTE		0x10eu	/* what a window may grant */

/*
 * Keys are allocated by the device: bits 31..8 the object's index in one
 * table of regions and windows (never 0), bits 7..0 the key byte.  REG_MR
 * and ALLOC_* choose a new key byte on every reuse of an index; REG_MR
 * WQEs and BIND_MW WQEs set the one software chooses.  A region's key
 * serves as lkey and rkey; a window's key is an rkey only.  A key names an
 * object only inside the PD it was created in.
 *
 * Windows (ALLOC_MW): type 1 and type 2B.  A BIND_MW WQE binds a window to
 * [addr, addr + length) of a region that has QRNIC_ACCESS_MW_BIND, in the
 * QP's PD, with remote rights of its own (remote write and atomic need
 * the region's local write; the region's own remote rights do not
 * matter).  Type 1 windows rebind freely, a zero length unbinds them; a
 * type 2 window must be unbound (fresh, or invalidated by LOCAL_INV,
 * SEND_WITH_INV or DEALLOC_MW), and once bound it serves only requests
 * arriving at the QP that bound it.
 * DESTROY_QP unbinds the type 2 windows the QP bound.
 *
 * Fast-registration regions (ALLOC_MR, kernel PDs): invalid until a REG_MR
 * WQE on a kernel QP of the same PD gives them pages, bounds, rights and a
 * key byte; LOCAL_INV or a received SEND_WITH_INV makes them invalid
 * again, and only an invalid region can be registered.  Regions of
 * REG_MR commands cannot be invalidated.
 */
#define QRNIC_KEY_INDEX(key)		((key) >> 8)
#define QRNIC_KEY_BYTE(key)		((key) & 0xffu)
#define QRNIC_MW_TYPE_1			1
#define QRNIC_MW_TYPE_2			2
#define QRNIC_MAX_FAST_REG_PAGES	512	/* one 4 KiB page list */

/* ---- Queue pairs ------------------------------------------------------------ */
/*
 * Work queues live in queue memory (BAR4).  The driver chooses each QP's
 * slice: the SQ at sq_offset (1 << log_sq_depth WQEs of 1 << log_sq_stride
 * bytes), the RQ at rq_offset (likewise).  Offsets are multiples of
 * QRNIC_QMEM_PAGE_SIZE; a queue occupies whole pages; slices of live QPs
 * may not overlap (BAD_PARAM).  Software writes WQE pi % depth, then rings
 * DB_SQ / DB_RQ with the new free running 16-bit producer index on the
 * doorbell page of the context that owns the QP.  The device reads WQEs
 * from queue memory when it starts or retransmits them and validates every
 * field each time.  A SQ slot is free again when a CQE with
 * QRNIC_CQE_F_SEND reports a wqe_idx at or after it (completions are in
 * order; software signals at least once per depth WQEs); a RQ slot when
 * its receive completion arrives (receives complete in order).
 *
 * A shared receive queue (CREATE_SRQ) is a receive ring of its own in queue
 * memory, rung with DB_SRQ; the QPs created with its srqn take receive WQEs
 * from it, in ring order, when a message starts.  Messages of different QPs
 * complete in any order, so an SRQ slot is free again only when its own
 * completion (QRNIC_CQE_F_SRQ, wqe_idx = the slot) and those of all slots
 * before it have arrived.  With a limit armed (CREATE_SRQ or MODIFY_SRQ),
 * the device posts QRNIC_EVENT_SRQ_LIMIT and disarms when a take leaves
 * fewer WQEs than the limit.
 *
 * MODIFY_SRQ with QRNIC_SRQ_MOD_RESIZE moves the SRQ to a new ring of
 * 1 << log_depth WQEs at offset (same stride, the old ring's pages may
 * not be reused).  The device copies the WQEs posted and not yet taken
 * (free running indexes ci..pi-1) to slot i % new depth of the new ring,
 * keeps its indexes, takes WQEs from the new ring from then on and frees
 * the old ring's pages.  Slots taken and not yet completed need no copy
 * (a taken WQE lives in its QP), but software still counts them: it asks
 * for a depth holding every WQE it posted and has not seen complete, and
 * posts nothing while the command runs.  BAD_PARAM if the new ring cannot
 * hold the WQEs not yet taken or overlaps another queue, or an armed
 * limit is not below the new depth.
 */
#define QRNIC_SRQ_MOD_LIMIT		(1u << 0)
#define QRNIC_SRQ_MOD_RESIZE		(1u << 1)
/*
 * XRC (QRNIC_CAP0_XRC).  An XRC domain is a number the driver chooses
 * (nonzero, 24 bits); the device only compares them.  An XRC SRQ
 * (CREATE_SRQ with xrcd) is an SRQ that names its own CQ.  An XRC_INI QP
 * is an RC requester without a receive side: send_cqn, pdn and its SQ as
 * for RC; recv_cqn, srqn, rq_offset and log_rq_* 0.  Each send WQE names
 * the XRC SRQ at the target in xrc_srqn (XRCETH).  An XRC_TGT QP is an RC
 * responder without queues: xrcd, and the context it counts against in
 * uctx (the one that allocated the domain; it uses no doorbell); pdn,
 * both CQs, srqn, offsets and logs 0.  A request
 * it receives names an XRC SRQ of its domain (else NAK invalid request,
 * QP to ERR); a SEND or WRITE with immediate takes that SRQ's WQE and
 * completes on that SRQ's CQ (QRNIC_CQE_F_XRC), and the SRQ's PD is the
 * one remote keys must belong to.  MODIFY_QP takes the attributes IBTA
 * (and Linux's ib_modify_qp_is_ok) require and allow for each type: RC's,
 * less MAX_DEST_RD_ATOMIC and MIN_RNR_TIMER for XRC_INI, less RETRY_CNT,
 * RNR_RETRY and MAX_QP_RD_ATOMIC for XRC_TGT.  A READ's reply, also one
 * replayed for a duplicate, reads through the PD of the SRQ its request
 * named, whatever later messages name.  DESTROY_SRQ of an XRC SRQ detaches
 * it from XRC_TGT QPs: a message in progress into it ends the QP with a
 * NAK when its next packet comes, a READ reply still to send through its
 * PD with a remote access NAK.
 */
#define QRNIC_QPT_GSI			1	/* IB_QPT_GSI: QP 1, kernel only */
#define QRNIC_QPT_RC			2	/* IB_QPT_RC */
#define QRNIC_QPT_UC			3	/* IB_QPT_UC */
#define QRNIC_QPT_UD			4	/* IB_QPT_UD */
#define QRNIC_QPT_XRC_INI		9	/* IB_QPT_XRC_INI */
#define QRNIC_QPT_XRC_TGT		10	/* IB_QPT_XRC_TGT */
#define QRNIC_XRCD_MASK			0x00ffffffu
#define QRNIC_GSI_QPN			1
#define QRNIC_MCAST_QPN			0xffffffu	/* BTH DestQP of multicast */
#define QRNIC_MAX_MCAST_GROUPS		64
#define QRNIC_MAX_MCAST_QPS		16	/* QPs attached to one group */
#define QRNIC_GRH_LEN			40	/* UD receive buffers start so */
#define QRNIC_QPN_MASK			0x00ffffffu	/* CQE qpn = full qpn */
#define QRNIC_QP_SIG_ALL		(1u << 0)
#define QRNIC_QP_MAX_LOG		14
#define QRNIC_SQ_MIN_LOG_STRIDE		6	/* 64 B: header only */
#define QRNIC_SQ_MAX_LOG_STRIDE		9	/* 512 B */
#define QRNIC_RQ_MIN_LOG_STRIDE		4	/* 16 B: header only */
#define QRNIC_RQ_MAX_LOG_STRIDE		8	/* 256 B */
#define QRNIC_MAX_SGE			16
#define QRNIC_MAX_INLINE		256
#define QRNIC_MAX_RD_ATOMIC		128	/* outstanding READ/atomic per QP */
#define QRNIC_MAX_MSG_SIZE		0x80000000u	/* 2 GiB */

struct qrnic_sge {
	qrnic_le64 addr;
	qrnic_le32 length;
	qrnic_le32 lkey;
};

#define QRNIC_SGE_SIZE		16
QRNIC_HW_SIZE(qrnic_sge, QRNIC_SGE_SIZE);

/*
 * Send WQE: this 64-byte header, then num_sge SGEs or, with
 * QRNIC_WQE_F_INLINE, inline_len bytes of data (num_sge is then ignored;
 * software writes 0).  INLINE with RDMA_READ or an atomic is LOC_LEN_ERR.
 * On a UD or GSI QP the header's last 40 bytes are the address vector
 * (struct qrnic_ud_av) instead of the RDMA/atomic fields; BIND_MW, REG_MR
 * and FLUSH WQEs use their own layouts of those bytes.
 *
 * LOCAL_INV and SEND_WITH_INV carry the key to invalidate in imm_data
 * (little endian).  SEND_WITH_INV is RC only; the responder invalidates
 * the key (a fast-registration region of its QP's PD, or a type 2 window
 * bound by that QP) when the message completes; if it cannot, as rdma_rxe
 * does, the receive completes REM_INV_REQ_ERR, the message is
 * acknowledged as usual and the QP goes to ERR.  BIND_MW, REG_MR and
 * LOCAL_INV move no data and complete in order with the WQEs around them
 * (LOCAL_INV after those before it have completed); REG_MR only on
 * kernel QPs.  FLUSH (RC) asks the responder to make [remote_addr,
 * remote_addr + length) (or the whole region with QRNIC_FLUSH_MR) globally
 * visible after the writes before it; ATOMIC_WRITE (RC) writes 8 bytes
 * from compare_add (as bytes) to an 8-byte aligned remote address in one
 * piece, with remote write rights on the QP and the region.  FLUSH of
 * type GLOBAL needs QRNIC_ACCESS_FLUSH_GLOBAL on the responder's QP and
 * region; persistence is not offered (remote access error).
 */
/*
 * An address vector's flow label has 20 bits; the device ignores the bits
 * above them (UCX passes ~0 on RoCE, and rxe and mlx5 take it).
 */
#define QRNIC_FLOW_LABEL_MASK		0xfffffu

struct qrnic_ud_av {
	qrnic_le32 dest_qpn;	/* 24 bit */
	qrnic_le32 qkey;	/* QRNIC_UD_QKEY_USE_QP: the QP's Q_Key */
	uint8_t  dgid[16];
	uint8_t  dmac[6];
	uint8_t  sgid_index;	/* < gid_tbl_len, same IP version as dgid */
	uint8_t  hop_limit;
	qrnic_le32 flow_label;	/* QRNIC_FLOW_LABEL_MASK */
	uint8_t  traffic_class;
	uint8_t  rsvd[3];
};

#define QRNIC_UD_AV_SIZE	40
#define QRNIC_UD_QKEY_USE_QP	(1u << 31)	/* a controlled Q_Key (IBTA) */
QRNIC_HW_SIZE(qrnic_ud_av, QRNIC_UD_AV_SIZE);

struct qrnic_sq_wqe {
	qrnic_le64 wr_id;
	uint8_t  opcode;	/* QRNIC_WR_* */
	uint8_t  flags;		/* QRNIC_WQE_F_* */
	uint8_t  num_sge;
	uint8_t  rsvd0;
	union {
		qrnic_be32 imm_data;	/* network order, as verbs gives it */
		qrnic_le32 invalidate_rkey;	/* LOCAL_INV, SEND_WITH_INV */
	};
	qrnic_le32 inline_len;	/* with QRNIC_WQE_F_INLINE */
	qrnic_le32 xrc_srqn;	/* XRC_INI: the XRC SRQ at the target */
	union {
		struct {		/* RC, XRC_INI */
			qrnic_le64 remote_addr;	/* RDMA and atomic */
			qrnic_le32 rkey;
			qrnic_le32 rsvd2;
			qrnic_le64 compare_add;	/* CMP_AND_SWP: compare;
						 * FETCH_AND_ADD: add
						 */
			qrnic_le64 swap;	/* CMP_AND_SWP */
			qrnic_le64 rsvd3;
		};
		struct qrnic_ud_av ud;	/* UD, GSI: SEND and SEND_IMM only */
		struct {
			qrnic_le32 mw_key;	/* the window's current key */
			qrnic_le32 new_key;	/* same index, new key byte */
			qrnic_le64 addr;	/* in the region's iova space */
			qrnic_le64 length;	/* type 1: 0 unbinds */
			qrnic_le32 mr_key;	/* the region it lies in */
			qrnic_le32 access;	/* QRNIC_ACCESS_REMOTE bits */
			qrnic_le64 rsvd;
		} bind_mw;			/* QRNIC_WR_BIND_MW, RC and UC */
		struct {
			qrnic_le32 key;		/* the ALLOC_MR region, new byte */
			qrnic_le32 access;	/* QRNIC_ACCESS_* but MW_BIND */
			qrnic_le64 iova;
			qrnic_le64 length;
			qrnic_le64 pbl_addr;	/* DMA: npages u64 page addresses */
			qrnic_le32 npages;	/* 1..the region's max_pages */
			uint8_t  page_shift;	/* QRNIC_MIN/MAX_PAGE_SHIFT */
			uint8_t  rsvd[3];
		} reg_mr;			/* QRNIC_WR_REG_MR, kernel QPs */
		struct {
			qrnic_le64 remote_addr;
			qrnic_le32 rkey;
			uint8_t  type;		/* QRNIC_FLUSH_GLOBAL, _PERSISTENT */
			uint8_t  level;		/* QRNIC_FLUSH_RANGE, _MR */
			qrnic_le16 rsvd;
			qrnic_le64 length;	/* RANGE only */
			qrnic_le64 rsvd2[2];
		} flush;			/* QRNIC_WR_FLUSH, RC */
	};
};

#define QRNIC_SQ_WQE_SIZE	64
QRNIC_HW_SIZE(qrnic_sq_wqe, QRNIC_SQ_WQE_SIZE);

/* Receive WQE: this 16-byte header, then num_sge SGEs. */
struct qrnic_rq_wqe {
	qrnic_le64 wr_id;
	uint8_t  num_sge;
	uint8_t  rsvd[7];
};

#define QRNIC_RQ_WQE_SIZE	16
QRNIC_HW_SIZE(qrnic_rq_wqe, QRNIC_RQ_WQE_SIZE);

/*
 * The send work-request opcodes, one row each:
 * X(NAME, value, QP types, CQE opcode, properties, capability).
 * QRNIC_WR_<NAME> is value, the value of IB_WR_<NAME> / IBV_WR_<NAME>.
 * QP types: the QRNIC_QPT_* that take it (UD also means GSI), as
 * QRNIC_WR_QPT_* bits.  CQE opcode: QRNIC_CQE_OP_<it> on its completion.
 * Properties: QRNIC_WR_P_* bits.  Capability: QRNIC_CAP0_<it> the device
 * advertises when it carries the opcode (BASE: no bit of its own).
 */
#define QRNIC_WR_LIST(X)						\
	X(RDMA_WRITE,	    0,	  (RC, UC, XRC), RDMA_WRITE, (PAYLOAD),	      BASE) \
	X(RDMA_WRITE_IMM,   1,	  (RC, UC, XRC), RDMA_WRITE, (PAYLOAD, IMM),  BASE) \
	X(SEND,		    2,	  (RC, UC, UD, XRC), SEND,  (PAYLOAD, SEND),  BASE) \
	X(SEND_IMM,	    3,	  (RC, UC, UD, XRC), SEND,  (PAYLOAD, SEND, IMM), BASE) \
	X(RDMA_READ,	    4,	  (RC, XRC),	RDMA_READ,  (RESULT),	      BASE) \
	X(ATOMIC_CMP_AND_SWP, 5,  (RC, XRC),	COMP_SWAP,  (RESULT, ATOMIC), ATOMIC) \
	X(ATOMIC_FETCH_AND_ADD, 6, (RC, XRC),	FETCH_ADD,  (RESULT, ATOMIC), ATOMIC) \
	X(LOCAL_INV,	    7,	  (RC, XRC),	LOCAL_INV,  (LOCAL),	      FAST_REG) \
	X(BIND_MW,	    8,	  (RC, UC),	BIND_MW,    (LOCAL),	      MW) \
	X(SEND_WITH_INV,    9,	  (RC),		SEND,	    (PAYLOAD, SEND, INV), FAST_REG) \
	X(FLUSH,	    14,	  (RC),		FLUSH,	    (RESPONSE),	      FLUSH) \
	X(ATOMIC_WRITE,	    15,	  (RC),		ATOMIC_WRITE, (RESPONSE),     ATOMIC_WRITE) \
	X(REG_MR,	    0x20, (RC),		REG_MR,	    (LOCAL, KERNEL),  FAST_REG)

#define QRNIC_WR_ENUM(name, value, ...)	QRNIC_WR_##name = (value),

enum qrnic_wr_opcode {
	QRNIC_WR_LIST(QRNIC_WR_ENUM)
};

/* QP types of a row: QRNIC_WR_QPT(QRNIC_QPT_*) bits. */
#define QRNIC_WR_QPT(qpt)		((qpt) < 16 ? 1u << (qpt) : 0u)
#define QRNIC_WR_QPT_RC			QRNIC_WR_QPT(QRNIC_QPT_RC)
#define QRNIC_WR_QPT_UC			QRNIC_WR_QPT(QRNIC_QPT_UC)
#define QRNIC_WR_QPT_UD			(QRNIC_WR_QPT(QRNIC_QPT_UD) | \
					 QRNIC_WR_QPT(QRNIC_QPT_GSI))
#define QRNIC_WR_QPT_XRC		QRNIC_WR_QPT(QRNIC_QPT_XRC_INI)

/* Properties of a row. */
#define QRNIC_WR_P_SGL			(1u << 0)	/* takes SGEs */
#define QRNIC_WR_P_DATA			(1u << 1)	/* sends their data,
							 * or inline data
							 */
#define QRNIC_WR_P_SEND			(1u << 2)	/* a SEND: consumes a
							 * receive WQE
							 */
#define QRNIC_WR_P_IMM			(1u << 3)	/* carries imm_data */
#define QRNIC_WR_P_INV			(1u << 4)	/* invalidates the
							 * peer's imm_data key
							 */
#define QRNIC_WR_P_RESPONSE		(1u << 5)	/* answered by a response
							 * (holds a max_rd_atomic
							 * slot), not an ACK
							 */
#define QRNIC_WR_P_ATOMIC		(1u << 6)	/* an 8-byte atomic */
#define QRNIC_WR_P_LOCAL		(1u << 7)	/* runs in the device,
							 * nothing on the wire
							 */
#define QRNIC_WR_P_KERNEL		(1u << 8)	/* kernel QPs only */
/* The row's words for them. */
#define QRNIC_WR_P_PAYLOAD		(QRNIC_WR_P_SGL | QRNIC_WR_P_DATA)
#define QRNIC_WR_P_RESULT		(QRNIC_WR_P_SGL | QRNIC_WR_P_RESPONSE)
#define QRNIC_CAP0_BASE			0

/* What the table says of one opcode; qp_types 0 for an unknown one. */
struct qrnic_wr_info {
	uint16_t props;		/* QRNIC_WR_P_* */
	uint16_t qp_types;	/* QRNIC_WR_QPT_* */
	uint8_t  cqe_opcode;	/* QRNIC_CQE_OP_* */
	uint32_t cap0;		/* QRNIC_CAP0_* */
};

/* A row's (A, B, C, D) columns as the OR of their bits (up to four). */
#define QRNIC_WR_QPT_NONE		0
#define QRNIC_WR_P_NONE			0
#define QRNIC_WR_OR4(pfx, a, b, c, d, ...) (pfx##a | pfx##b | pfx##c | pfx##d)
#define QRNIC_WR_TYPES(...)	QRNIC_WR_OR4(QRNIC_WR_QPT_, __VA_ARGS__, NONE, NONE, NONE, NONE)
#define QRNIC_WR_PROPS(...)	QRNIC_WR_OR4(QRNIC_WR_P_, __VA_ARGS__, NONE, NONE, NONE, NONE)
#define QRNIC_WR_INFO_CASE(name, value, qpts, cqe, wr_props, cap)	\
	case QRNIC_WR_##name: {						\
		struct qrnic_wr_info i = {				\
			.props = QRNIC_WR_PROPS wr_props,		\
			.qp_types = QRNIC_WR_TYPES qpts,		\
			.cqe_opcode = QRNIC_CQE_OP_##cqe,		\
			.cap0 = QRNIC_CAP0_##cap,			\
		};							\
		return i;						\
	}

static inline struct qrnic_wr_info qrnic_wr_info(unsigned int opcode)
{
	struct qrnic_wr_info unknown = { 0 };

	switch (opcode) {
	QRNIC_WR_LIST(QRNIC_WR_INFO_CASE)
	}
	return unknown;
}

/* FLUSH placement types and selectivity levels (FETH, IBA A19). */
#define QRNIC_FLUSH_GLOBAL		(1u << 0)
#define QRNIC_FLUSH_PERSISTENT		(1u << 1)	/* always REM_ACCESS */
#define QRNIC_FLUSH_RANGE		0
#define QRNIC_FLUSH_MR			1

#define QRNIC_WQE_F_SIGNALED		(1u << 0)
#define QRNIC_WQE_F_SOLICITED		(1u << 1)
#define QRNIC_WQE_F_INLINE		(1u << 2)
#define QRNIC_WQE_F_FENCE		(1u << 3)	/* wait for prior READ/atomic */

/* QP states: the values of enum ib_qp_state / ibv_qp_state. */
enum qrnic_qp_state {
	QRNIC_QPS_RESET			= 0,
	QRNIC_QPS_INIT			= 1,
	QRNIC_QPS_RTR			= 2,
	QRNIC_QPS_RTS			= 3,
	QRNIC_QPS_SQD			= 4,
	QRNIC_QPS_SQE			= 5,
	QRNIC_QPS_ERR			= 6,
};

/* MODIFY_QP attr_mask bits: the values of IB_QP_* / IBV_QP_*. */
#define QRNIC_QP_ATTR_STATE		(1u << 0)
#define QRNIC_QP_ATTR_CUR_STATE		(1u << 1)
#define QRNIC_QP_ATTR_EN_SQD_ASYNC	(1u << 2)
#define QRNIC_QP_ATTR_ACCESS_FLAGS	(1u << 3)
#define QRNIC_QP_ATTR_PKEY_INDEX	(1u << 4)
#define QRNIC_QP_ATTR_PORT		(1u << 5)
#define QRNIC_QP_ATTR_QKEY		(1u << 6)
#define QRNIC_QP_ATTR_AV		(1u << 7)
#define QRNIC_QP_ATTR_PATH_MTU		(1u << 8)
#define QRNIC_QP_ATTR_TIMEOUT		(1u << 9)
#define QRNIC_QP_ATTR_RETRY_CNT		(1u << 10)
#define QRNIC_QP_ATTR_RNR_RETRY		(1u << 11)
#define QRNIC_QP_ATTR_RQ_PSN		(1u << 12)
#define QRNIC_QP_ATTR_MAX_QP_RD_ATOMIC	(1u << 13)
#define QRNIC_QP_ATTR_MIN_RNR_TIMER	(1u << 15)
#define QRNIC_QP_ATTR_SQ_PSN		(1u << 16)
#define QRNIC_QP_ATTR_MAX_DEST_RD_ATOMIC (1u << 17)
#define QRNIC_QP_ATTR_DEST_QPN		(1u << 20)
#define QRNIC_QP_ATTR_SUPPORTED		0x0013bfffu

/*
 * MODIFY_QP reads, QUERY_QP writes this block (128 bytes).  Transitions
 * and required/optional attributes follow the IBTA rules of the QP's type
 * (RC, UD, GSI; see docs/hardware.md); a missing required attribute, an unexpected one or an
 * out-of-range value is BAD_PARAM, a transition the state does not allow
 * BAD_STATE.  The address vector names the source GID by index; the
 * device copies that GID when the QP enters RTR.
 */
struct qrnic_qp_attr {
	uint8_t  qp_state;		/* MODIFY_QP: the new state; QUERY_QP: now */
	uint8_t  cur_state;		/* MODIFY_QP with CUR_STATE: asserted */
	uint8_t  path_mtu;		/* 1..5: 256..4096 (enum ib_mtu) */
	uint8_t  timeout;		/* 4.096 us << timeout, 0: infinite */
	uint8_t  retry_cnt;		/* 0..7 */
	uint8_t  rnr_retry;		/* 0..7, 7: infinite */
	uint8_t  min_rnr_timer;		/* 0..31 (IBTA table) */
	uint8_t  max_rd_atomic;		/* 0..QRNIC_MAX_RD_ATOMIC */
	uint8_t  max_dest_rd_atomic;	/* 0..QRNIC_MAX_RD_ATOMIC */
	uint8_t  sgid_index;		/* < gid_tbl_len */
	uint8_t  hop_limit;
	uint8_t  traffic_class;
	qrnic_le32 access_flags;	/* QRNIC_ACCESS_REMOTE_* */
	qrnic_le32 dest_qpn;		/* 24 bit */
	qrnic_le32 rq_psn;		/* 24 bit */
	qrnic_le32 sq_psn;		/* 24 bit */
	qrnic_le32 flow_label;		/* QRNIC_FLOW_LABEL_MASK */
	qrnic_le16 pkey_index;		/* 0 */
	uint8_t  port_num;		/* 1 */
	uint8_t  sq_draining;		/* QUERY_QP only */
	uint8_t  dgid[16];
	uint8_t  dmac[6];
	qrnic_le16 rsvd0;
	qrnic_le32 qkey;		/* UD, GSI */
	qrnic_le32 rsvd[16];
};

#define QRNIC_QP_ATTR_SIZE	128
QRNIC_HW_SIZE(qrnic_qp_attr, QRNIC_QP_ATTR_SIZE);

/* ---- RoCEv2 -------------------------------------------------------------- */
#define QRNIC_ROCE_UDP_PORT		4791

#endif /* QRNIC_HW_H */
