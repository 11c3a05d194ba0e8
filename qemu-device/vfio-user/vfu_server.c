/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vfio-user server core (vfu_server.h), written from QEMU's
 * docs/interop/vfio-user.rst.
 *
 * Every command has a handler in one table; the dispatcher checks the
 * header, the handler the payload.  A handler takes an fd it keeps by
 * setting its slot in the request to -1; the dispatcher closes the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include "vfu_server.h"

#define HDR_SIZE        sizeof(struct vfu_hdr)
#define JSON_MAX_DEPTH  8
#define JSON_KEY_MAX    32

struct dma_map {
    uint64_t iova;
    uint64_t size;
    uint32_t prot;              /* VFIO_DMA_MAP_FLAG_* */
    void *host;                 /* NULL: the client gave no fd */
};

struct vfu_server {
    struct vfu_device_desc desc;
    const struct vfu_device_ops *ops;
    void *opaque;

    /* Negotiated by VERSION. */
    bool negotiated;
    uint32_t client_max_fds;    /* fds the client takes in one reply */
    uint32_t max_xfer;
    uint64_t pgsizes;
    uint32_t max_dma_maps;

    /*
     * DMA mappings sorted by iova, without overlaps.  Only the message
     * thread changes them, under the write lock; it reads them without
     * the lock, other threads under the read lock (vfu_dma_ptr()).
     */
    pthread_rwlock_t dma_lock;
    struct dma_map *dma;
    uint32_t ndma;
    uint32_t dma_cap;

    int *irq_fds[VFU_MAX_IRQS]; /* the eventfd of each vector, or -1 */
    int irq_scratch[VFU_MAX_IRQ_VECTORS];

    uint8_t *out;               /* the reply being built, header first */
    size_t out_size;
};

struct vfu_req {
    struct vfu_hdr hdr;
    const uint8_t *payload;
    size_t plen;
    int *fds;                   /* -1 once a handler has taken one */
    size_t nfds;
    size_t out_len;             /* reply payload bytes at out + HDR_SIZE */
    int out_fd;                 /* an fd to send with the reply, or -1 */
};

static uint8_t *out_payload(struct vfu_server *s)
{
    return s->out + HDR_SIZE;
}

static bool has_fds(const struct vfu_req *r)
{
    return r->nfds != 0;
}

/* ---- a small strict JSON reader ----------------------------------------- */

struct json {
    const char *p;
    const char *end;
    int depth;
};

static void json_ws(struct json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
                             *j->p == '\n' || *j->p == '\r')) {
        j->p++;
    }
}

static bool json_eat(struct json *j, char c)
{
    json_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

static bool json_literal(struct json *j, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) {
        return false;
    }
    j->p += n;
    return true;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * A string; its first key_size - 1 decoded bytes go to key (if given).
 * *long_key is set when they did not fit.  \u escapes decode as '?': no
 * key the server knows has one.
 */
static int json_string(struct json *j, char *key, size_t key_size,
                       bool *long_key)
{
    size_t n = 0;
    int i;

    if (!json_eat(j, '"')) {
        return -EINVAL;
    }
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;

        if ((unsigned char)c < 0x20) {
            return -EINVAL;
        }
        if (c == '\\') {
            if (j->p == j->end) {
                return -EINVAL;
            }
            c = *j->p++;
            if (c == 'u') {
                for (i = 0; i < 4; i++) {
                    if (j->p == j->end || !is_hex(*j->p)) {
                        return -EINVAL;
                    }
                    j->p++;
                }
                c = '?';
            } else if (!strchr("\"\\/bfnrt", c)) {
                return -EINVAL;
            }
        }
        if (key) {
            if (n + 1 < key_size) {
                key[n++] = c;
            } else {
                *long_key = true;
            }
        }
    }
    if (j->p == j->end) {
        return -EINVAL;
    }
    j->p++;
    if (key) {
        key[n] = '\0';
    }
    return 0;
}

/* A number by the JSON grammar; *plain: a non-negative integer. */
static int json_number(struct json *j, uint64_t *val, bool *plain)
{
    uint64_t v = 0;
    bool overflow = false;

    *plain = true;
    json_ws(j);
    if (j->p < j->end && *j->p == '-') {
        *plain = false;
        j->p++;
    }
    if (j->p == j->end || !is_digit(*j->p)) {
        return -EINVAL;
    }
    if (*j->p == '0') {
        j->p++;
    } else {
        while (j->p < j->end && is_digit(*j->p)) {
            unsigned d = (unsigned)(*j->p++ - '0');

            if (v > (UINT64_MAX - d) / 10) {
                overflow = true;
            }
            v = v * 10 + d;
        }
    }
    if (j->p < j->end && *j->p == '.') {
        *plain = false;
        j->p++;
        if (j->p == j->end || !is_digit(*j->p)) {
            return -EINVAL;
        }
        while (j->p < j->end && is_digit(*j->p)) {
            j->p++;
        }
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        *plain = false;
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) {
            j->p++;
        }
        if (j->p == j->end || !is_digit(*j->p)) {
            return -EINVAL;
        }
        while (j->p < j->end && is_digit(*j->p)) {
            j->p++;
        }
    }
    if (overflow) {
        *plain = false;
    }
    *val = v;
    return 0;
}

static int json_skip(struct json *j);

static int json_uint(struct json *j, uint64_t *val)
{
    bool plain;
    int ret = json_number(j, val, &plain);

    return ret ? ret : plain ? 0 : -EINVAL;
}

static int json_bool(struct json *j, bool *val)
{
    json_ws(j);
    if (json_literal(j, "true")) {
        *val = true;
        return 0;
    }
    if (json_literal(j, "false")) {
        *val = false;
        return 0;
    }
    return -EINVAL;
}

typedef int (*json_member_fn)(struct json *j, const char *key, void *ctx);

/* An object: member() is called for each key with j at its value. */
static int json_object(struct json *j, json_member_fn member, void *ctx)
{
    int ret;

    if (!json_eat(j, '{')) {
        return -EINVAL;
    }
    if (++j->depth > JSON_MAX_DEPTH) {
        return -EINVAL;
    }
    if (!json_eat(j, '}')) {
        do {
            char key[JSON_KEY_MAX];
            bool long_key = false;

            ret = json_string(j, key, sizeof(key), &long_key);
            if (ret) {
                return ret;
            }
            if (!json_eat(j, ':')) {
                return -EINVAL;
            }
            ret = long_key ? json_skip(j) : member(j, key, ctx);
            if (ret) {
                return ret;
            }
        } while (json_eat(j, ','));
        if (!json_eat(j, '}')) {
            return -EINVAL;
        }
    }
    j->depth--;
    return 0;
}

static int skip_member(struct json *j, const char *key, void *ctx)
{
    (void)key;
    (void)ctx;
    return json_skip(j);
}

static int json_array_skip(struct json *j)
{
    int ret;

    if (!json_eat(j, '[')) {
        return -EINVAL;
    }
    if (++j->depth > JSON_MAX_DEPTH) {
        return -EINVAL;
    }
    if (!json_eat(j, ']')) {
        do {
            ret = json_skip(j);
            if (ret) {
                return ret;
            }
        } while (json_eat(j, ','));
        if (!json_eat(j, ']')) {
            return -EINVAL;
        }
    }
    j->depth--;
    return 0;
}

/* Any value, checked and passed over. */
static int json_skip(struct json *j)
{
    uint64_t v;
    bool b;

    json_ws(j);
    if (j->p == j->end) {
        return -EINVAL;
    }
    switch (*j->p) {
    case '{':
        return json_object(j, skip_member, NULL);
    case '[':
        return json_array_skip(j);
    case '"':
        return json_string(j, NULL, 0, NULL);
    case 't':
    case 'f':
        return json_bool(j, &b);
    case 'n':
        return json_literal(j, "null") ? 0 : -EINVAL;
    default:
        return json_number(j, &v, &b);
    }
}

/* ---- VERSION ------------------------------------------------------------ */

enum {
    CAP_MAX_MSG_FDS     = 1 << 0,
    CAP_MAX_DATA_XFER   = 1 << 1,
    CAP_PGSIZES         = 1 << 2,
    CAP_MAX_DMA_MAPS    = 1 << 3,
    CAP_MIGRATION       = 1 << 4,
    CAP_TWIN_SOCKET     = 1 << 5,
    CAP_WRITE_MULTIPLE  = 1 << 6,
    CAP_CAPABILITIES    = 1 << 7,
    CAP_TWIN_SUPPORTED  = 1 << 8,
    CAP_TWIN_FD_INDEX   = 1 << 9,
};

struct client_caps {
    uint32_t seen;              /* CAP_*: a key twice is malformed */
    uint64_t max_msg_fds;
    uint64_t max_data_xfer;
    uint64_t pgsizes;
    uint64_t max_dma_maps;
};

static int cap_seen(struct client_caps *c, uint32_t bit)
{
    if (c->seen & bit) {
        return -EINVAL;
    }
    c->seen |= bit;
    return 0;
}

/* twin_socket: read and checked; the server does not enable it. */
static int twin_member(struct json *j, const char *key, void *ctx)
{
    struct client_caps *c = ctx;
    uint64_t v;
    bool b;

    if (!strcmp(key, "supported")) {
        return cap_seen(c, CAP_TWIN_SUPPORTED) ?: json_bool(j, &b);
    }
    if (!strcmp(key, "fd_index")) {
        return cap_seen(c, CAP_TWIN_FD_INDEX) ?: json_uint(j, &v);
    }
    return json_skip(j);
}

static const struct {
    const char *name;
    uint32_t bit;
    size_t field;               /* offset of a number in client_caps */
} cap_numbers[] = {
    { "max_msg_fds", CAP_MAX_MSG_FDS,
      offsetof(struct client_caps, max_msg_fds) },
    { "max_data_xfer_size", CAP_MAX_DATA_XFER,
      offsetof(struct client_caps, max_data_xfer) },
    { "pgsizes", CAP_PGSIZES, offsetof(struct client_caps, pgsizes) },
    { "max_dma_maps", CAP_MAX_DMA_MAPS,
      offsetof(struct client_caps, max_dma_maps) },
};

static int caps_member(struct json *j, const char *key, void *ctx)
{
    struct client_caps *c = ctx;
    size_t i;
    bool b;

    for (i = 0; i < sizeof(cap_numbers) / sizeof(cap_numbers[0]); i++) {
        if (!strcmp(key, cap_numbers[i].name)) {
            return cap_seen(c, cap_numbers[i].bit) ?:
                   json_uint(j, (uint64_t *)((char *)c +
                                             cap_numbers[i].field));
        }
    }
    if (!strcmp(key, "migration")) {
        /* The device is not migratable: accepted, not offered back. */
        json_ws(j);
        if (j->p == j->end || *j->p != '{') {
            return -EINVAL;
        }
        return cap_seen(c, CAP_MIGRATION) ?: json_skip(j);
    }
    if (!strcmp(key, "twin_socket")) {
        return cap_seen(c, CAP_TWIN_SOCKET) ?:
               json_object(j, twin_member, c);
    }
    if (!strcmp(key, "write_multiple")) {
        /* REGION_WRITE_MULTI is not served: not offered back. */
        return cap_seen(c, CAP_WRITE_MULTIPLE) ?: json_bool(j, &b);
    }
    return json_skip(j);        /* the document lets unknown ones pass */
}

static int top_member(struct json *j, const char *key, void *ctx)
{
    struct client_caps *c = ctx;

    if (!strcmp(key, "capabilities")) {
        return cap_seen(c, CAP_CAPABILITIES) ?:
               json_object(j, caps_member, c);
    }
    return json_skip(j);
}

static int parse_caps(const char *text, size_t len, struct client_caps *c)
{
    struct json j = { .p = text, .end = text + len };
    int ret;

    c->seen = 0;
    c->max_msg_fds = VFU_DEFAULT_MAX_MSG_FDS;
    c->max_data_xfer = VFU_DEFAULT_MAX_DATA_XFER;
    c->pgsizes = VFU_DEFAULT_PGSIZES;
    c->max_dma_maps = VFU_DEFAULT_MAX_DMA_MAPS;
    ret = json_object(&j, top_member, c);
    if (ret) {
        return ret;
    }
    json_ws(&j);
    return j.p == j.end ? 0 : -EINVAL;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static int cmd_version(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_version v, out;
    struct client_caps c;
    uint64_t host_page = (uint64_t)sysconf(_SC_PAGE_SIZE);
    char *json = (char *)out_payload(s) + sizeof(out);
    size_t json_room = s->out_size - HDR_SIZE - sizeof(out);
    int n, ret;

    if (s->negotiated || r->plen < sizeof(v) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&v, r->payload, sizeof(v));
    if (v.major != VFU_VERSION_MAJOR) {
        return -ENOTSUP;
    }
    if (r->plen == sizeof(v)) {
        ret = parse_caps("{}", 2, &c);
    } else {
        const char *text = (const char *)r->payload + sizeof(v);
        size_t len = r->plen - sizeof(v);

        /* One NUL, the last byte. */
        if (len > VFU_MAX_VERSION_JSON || memchr(text, 0, len) !=
            text + len - 1) {
            return -EINVAL;
        }
        ret = parse_caps(text, len - 1, &c);
    }
    if (ret) {
        return ret;
    }
    c.pgsizes &= ~(host_page - 1);
    if (!c.max_data_xfer || !c.pgsizes) {
        return -EINVAL;
    }

    s->client_max_fds = (uint32_t)min_u64(c.max_msg_fds, VFU_MAX_FDS);
    s->max_xfer = (uint32_t)min_u64(c.max_data_xfer, s->desc.max_data_xfer);
    s->pgsizes = c.pgsizes;
    s->max_dma_maps = (uint32_t)min_u64(c.max_dma_maps,
                                        s->desc.max_dma_maps);
    out.major = VFU_VERSION_MAJOR;
    out.minor = VFU_VERSION_MINOR;
    memcpy(out_payload(s), &out, sizeof(out));
    n = snprintf(json, json_room,
                 "{\"capabilities\":{\"max_msg_fds\":%u,"
                 "\"max_data_xfer_size\":%u,\"pgsizes\":%llu,"
                 "\"max_dma_maps\":%u}}",
                 VFU_MAX_FDS, s->max_xfer, (unsigned long long)s->pgsizes,
                 s->max_dma_maps);
    if (n < 0 || (size_t)n >= json_room) {
        return -EINVAL;
    }
    r->out_len = sizeof(out) + (size_t)n + 1;
    s->negotiated = true;
    return 0;
}

/* ---- DMA ---------------------------------------------------------------- */

/* The first mapping whose end is above iova (ndma if none). */
static uint32_t dma_find(const struct vfu_server *s, uint64_t iova)
{
    uint32_t lo = 0, hi = s->ndma;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct dma_map *m = &s->dma[mid];

        if (m->iova + (m->size - 1) < iova) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

void *vfu_dma_ptr(struct vfu_server *s, uint64_t iova, uint64_t len,
                  bool writable)
{
    uint32_t need = writable ? VFIO_DMA_MAP_FLAG_WRITE :
                               VFIO_DMA_MAP_FLAG_READ;
    void *ptr = NULL;
    uint32_t i;

    if (!len || iova + (len - 1) < iova) {
        return NULL;
    }
    pthread_rwlock_rdlock(&s->dma_lock);
    i = dma_find(s, iova);
    if (i < s->ndma) {
        const struct dma_map *m = &s->dma[i];

        if (m->host && (m->prot & need) && m->iova <= iova &&
            len <= m->size && iova - m->iova <= m->size - len) {
            ptr = (uint8_t *)m->host + (iova - m->iova);
        }
    }
    pthread_rwlock_unlock(&s->dma_lock);
    return ptr;
}

static bool dma_overlaps(const struct vfu_server *s, uint64_t iova,
                         uint64_t size)
{
    uint32_t i = dma_find(s, iova);

    return i < s->ndma && s->dma[i].iova <= iova + (size - 1);
}

static int dma_insert(struct vfu_server *s, const struct dma_map *m)
{
    uint32_t i = dma_find(s, m->iova);

    if (dma_overlaps(s, m->iova, m->size)) {
        return -EEXIST;
    }
    if (s->ndma == s->dma_cap) {
        /* Not realloc(): a reader may be in the old array until we swap. */
        uint32_t cap = s->dma_cap ? s->dma_cap * 2 : 16;
        struct dma_map *d = malloc(cap * sizeof(*d)), *old = s->dma;

        if (!d) {
            return -ENOMEM;
        }
        if (s->ndma) {
            memcpy(d, s->dma, s->ndma * sizeof(*d));
        }
        pthread_rwlock_wrlock(&s->dma_lock);
        s->dma = d;
        s->dma_cap = cap;
        pthread_rwlock_unlock(&s->dma_lock);
        free(old);
    }
    pthread_rwlock_wrlock(&s->dma_lock);
    memmove(&s->dma[i + 1], &s->dma[i], (s->ndma - i) * sizeof(*s->dma));
    s->dma[i] = *m;
    s->ndma++;
    pthread_rwlock_unlock(&s->dma_lock);
    return 0;
}

/*
 * Take mapping i out of the table, so that vfu_dma_ptr() no longer finds
 * it; then tell the device, which stops using the pointers it got before;
 * then unmap it.  (Telling the device first would let a device thread find
 * the mapping again between its callback and the unmap.)
 */
static void dma_remove(struct vfu_server *s, uint32_t i, bool notify)
{
    struct dma_map m = s->dma[i];

    pthread_rwlock_wrlock(&s->dma_lock);
    memmove(&s->dma[i], &s->dma[i + 1], (s->ndma - i - 1) * sizeof(*s->dma));
    s->ndma--;
    pthread_rwlock_unlock(&s->dma_lock);
    if (notify && s->ops->dma_unmap) {
        s->ops->dma_unmap(s->opaque, m.iova, m.size);
    }
    if (m.host) {
        munmap(m.host, m.size);
    }
}

static void dma_remove_all(struct vfu_server *s)
{
    while (s->ndma) {
        dma_remove(s, s->ndma - 1, true);
    }
}

/* mmap the client's fd for m; 0 or -errno. */
static int dma_mmap(struct dma_map *m, int fd, uint64_t offset)
{
    struct statfs sfs;
    struct stat st;
    int prot = 0;
    void *p;

    /*
     * Memory, not a file a page fault could wait on (FUSE, NFS) while the
     * device's one thread stands still: shmem (memfd, /dev/shm) or
     * hugetlbfs, as QEMU's shared memory backends are.
     */
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || fstatfs(fd, &sfs) ||
        (sfs.f_type != TMPFS_MAGIC && sfs.f_type != HUGETLBFS_MAGIC)) {
        return -EINVAL;
    }
    /* Past the file's end an access would raise SIGBUS. */
    if (st.st_size < 0 || offset > (uint64_t)st.st_size ||
        m->size > (uint64_t)st.st_size - offset || m->size > SIZE_MAX) {
        return -EINVAL;
    }
    if (m->prot & VFIO_DMA_MAP_FLAG_READ) {
        prot |= PROT_READ;
    }
    if (m->prot & VFIO_DMA_MAP_FLAG_WRITE) {
        prot |= PROT_WRITE;
    }
    p = mmap(NULL, (size_t)m->size, prot, MAP_SHARED, fd, (off_t)offset);
    if (p == MAP_FAILED) {
        return -errno;
    }
    m->host = p;
    return 0;
}

static int cmd_dma_map(struct vfu_server *s, struct vfu_req *r)
{
    const uint32_t prot_mask = VFIO_DMA_MAP_FLAG_READ |
                               VFIO_DMA_MAP_FLAG_WRITE;
    uint64_t page_mask = (s->pgsizes & -s->pgsizes) - 1;
    struct vfu_dma_map req;
    struct dma_map m;
    int ret;

    if (r->plen != sizeof(req) || r->nfds > 1) {
        return -EINVAL;
    }
    memcpy(&req, r->payload, sizeof(req));
    if (req.argsz != sizeof(req) || (req.flags & ~prot_mask) ||
        !(req.flags & prot_mask) || !req.size ||
        req.address + (req.size - 1) < req.address ||
        ((req.address | req.size | req.offset) & page_mask) ||
        (!r->nfds && req.offset) ||
        req.offset + (req.size - 1) < req.offset) {
        return -EINVAL;
    }
    /* Before mmap(), so a refusal costs nothing. */
    if (dma_overlaps(s, req.address, req.size)) {
        return -EEXIST;
    }
    if (s->ndma >= s->max_dma_maps) {
        return -ENOSPC;
    }
    m.iova = req.address;
    m.size = req.size;
    m.prot = req.flags;
    m.host = NULL;
    if (r->nfds) {
        ret = dma_mmap(&m, r->fds[0], req.offset);
        if (ret) {
            return ret;
        }
    }
    ret = dma_insert(s, &m);
    if (ret) {
        if (m.host) {
            munmap(m.host, m.size);
        }
        return ret;
    }
    if (s->ops->dma_map) {
        ret = s->ops->dma_map(s->opaque, m.iova, m.size, m.prot, m.host);
        if (ret) {
            dma_remove(s, dma_find(s, m.iova), false);
            return ret;
        }
    }
    return 0;
}

static int cmd_dma_unmap(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_dma_unmap req;
    uint32_t i;

    if (r->plen != sizeof(req) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&req, r->payload, sizeof(req));
    if (req.argsz < sizeof(req) || (req.flags & ~VFIO_DMA_UNMAP_FLAG_ALL)) {
        return -EINVAL;
    }
    if (req.flags & VFIO_DMA_UNMAP_FLAG_ALL) {
        if (req.address || req.size) {
            return -EINVAL;
        }
        dma_remove_all(s);
    } else {
        i = dma_find(s, req.address);
        if (i == s->ndma || s->dma[i].iova != req.address ||
            s->dma[i].size != req.size) {
            return -ENOENT;
        }
        dma_remove(s, i, true);
    }
    req.argsz = sizeof(req);
    memcpy(out_payload(s), &req, sizeof(req));
    r->out_len = sizeof(req);
    return 0;
}

/* ---- device, region and IRQ information --------------------------------- */

static int cmd_get_info(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_device_info info;

    if (r->plen != sizeof(info) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&info, r->payload, sizeof(info));
    if (info.argsz < sizeof(info) || info.flags || info.num_regions ||
        info.num_irqs) {
        return -EINVAL;
    }
    info.argsz = sizeof(info);
    info.flags = s->desc.flags;
    info.num_regions = s->desc.num_regions;
    info.num_irqs = s->desc.num_irqs;
    memcpy(out_payload(s), &info, sizeof(info));
    r->out_len = sizeof(info);
    return 0;
}

static int cmd_get_region_info(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_region_info info;
    const struct vfu_region_desc *d;

    if (r->plen != sizeof(info) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&info, r->payload, sizeof(info));
    if (info.argsz < sizeof(info) || info.flags || info.cap_offset ||
        info.size || info.offset || info.index >= s->desc.num_regions) {
        return -EINVAL;
    }
    d = &s->desc.region[info.index];
    info.argsz = sizeof(info);
    info.flags = d->flags;
    info.size = d->size;
    info.offset = 0;
    if (d->flags & VFIO_REGION_INFO_FLAG_MMAP) {
        if (s->client_max_fds) {
            info.offset = d->mmap_offset;
            r->out_fd = d->mmap_fd;
        } else {
            info.flags &= ~VFIO_REGION_INFO_FLAG_MMAP;
        }
    }
    memcpy(out_payload(s), &info, sizeof(info));
    r->out_len = sizeof(info);
    return 0;
}

static int cmd_get_irq_info(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_irq_info info;

    if (r->plen != sizeof(info) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&info, r->payload, sizeof(info));
    if (info.argsz < sizeof(info) || info.flags || info.count ||
        info.index >= s->desc.num_irqs) {
        return -EINVAL;
    }
    info.argsz = sizeof(info);
    info.flags = s->desc.irq[info.index].flags;
    info.count = s->desc.irq[info.index].count;
    memcpy(out_payload(s), &info, sizeof(info));
    r->out_len = sizeof(info);
    return 0;
}

/* ---- interrupts --------------------------------------------------------- */

static bool one_bit(uint32_t v)
{
    return v && !(v & (v - 1));
}

static void irq_close_all(struct vfu_server *s, uint32_t index)
{
    uint32_t v;

    for (v = 0; v < s->desc.irq[index].count; v++) {
        if (s->irq_fds[index][v] >= 0) {
            close(s->irq_fds[index][v]);
            s->irq_fds[index][v] = -1;
        }
    }
}

/*
 * An interrupt fd must be an eventfd, made non-blocking: signalling it then
 * never waits (a pipe, or an eventfd the client filled, would stop the
 * device's thread).
 */
static bool usable_eventfd(int fd)
{
    char path[32], target[32];
    ssize_t n;
    int fl;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, target, sizeof(target) - 1);
    if (n < 0) {
        return false;
    }
    target[n] = '\0';
    if (strcmp(target, "anon_inode:[eventfd]")) {
        return false;
    }
    fl = fcntl(fd, F_GETFL);
    return fl >= 0 && !fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int cmd_set_irqs(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_irq_set req;
    uint32_t data, action, i;
    const uint8_t *bools = NULL;
    int *fds = NULL;
    int ret;

    if (r->plen < sizeof(req)) {
        return -EINVAL;
    }
    memcpy(&req, r->payload, sizeof(req));
    data = req.flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
    action = req.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
    if (req.argsz != r->plen || req.flags != (data | action) ||
        !one_bit(data) || !one_bit(action) ||
        req.index >= s->desc.num_irqs) {
        return -EINVAL;
    }
    if (req.count == 0) {
        if (data != VFIO_IRQ_SET_DATA_NONE || req.start) {
            return -EINVAL;
        }
    } else if ((uint64_t)req.start + req.count >
               s->desc.irq[req.index].count) {
        return -EINVAL;
    }
    if (r->plen != sizeof(req) +
        (data == VFIO_IRQ_SET_DATA_BOOL ? req.count : 0)) {
        return -EINVAL;
    }
    if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
        if (r->nfds && r->nfds != req.count) {
            return -EINVAL;
        }
        /* Mask and unmask eventfds are not served. */
        if (action != VFIO_IRQ_SET_ACTION_TRIGGER) {
            return -ENOTSUP;
        }
        for (i = 0; i < r->nfds; i++) {
            if (!usable_eventfd(r->fds[i])) {
                return -EINVAL;
            }
        }
        fds = s->irq_scratch;
        for (i = 0; i < req.count; i++) {
            fds[i] = r->nfds ? r->fds[i] : -1;
        }
    } else if (has_fds(r)) {
        return -EINVAL;
    }
    if (data == VFIO_IRQ_SET_DATA_BOOL) {
        bools = r->payload + sizeof(req);
    }
    if (!s->ops->set_irqs) {
        return -ENOTSUP;
    }
    ret = s->ops->set_irqs(s->opaque, req.index, req.start, req.count,
                           req.flags, fds, bools);
    if (ret) {
        return ret;
    }
    if (fds) {
        for (i = 0; i < req.count; i++) {
            int *slot = &s->irq_fds[req.index][req.start + i];

            if (*slot >= 0) {
                close(*slot);
            }
            *slot = fds[i];
            if (r->nfds) {
                r->fds[i] = -1;
            }
        }
    } else if (!req.count && action == VFIO_IRQ_SET_ACTION_TRIGGER) {
        irq_close_all(s, req.index);
    }
    return 0;
}

/* ---- region access and reset -------------------------------------------- */

/* The region access a request names, checked. */
static int region_check(struct vfu_server *s, const struct vfu_region_rw *rw,
                        uint32_t need)
{
    const struct vfu_region_desc *d;

    if (rw->region >= s->desc.num_regions || !rw->count) {
        return -EINVAL;
    }
    if (rw->count > s->max_xfer) {
        return -E2BIG;
    }
    d = &s->desc.region[rw->region];
    if (rw->count > d->size || rw->offset > d->size - rw->count) {
        return -EINVAL;
    }
    if (!(d->flags & need)) {
        return -EACCES;
    }
    return s->ops->region_access ? 0 : -ENOTSUP;
}

static int cmd_region_read(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_region_rw rw;
    int ret;

    if (r->plen != sizeof(rw) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&rw, r->payload, sizeof(rw));
    ret = region_check(s, &rw, VFIO_REGION_INFO_FLAG_READ);
    if (ret) {
        return ret;
    }
    ret = s->ops->region_access(s->opaque, rw.region, rw.offset,
                                out_payload(s) + sizeof(rw), rw.count,
                                false);
    if (ret) {
        return ret;
    }
    memcpy(out_payload(s), &rw, sizeof(rw));
    r->out_len = sizeof(rw) + rw.count;
    return 0;
}

static int cmd_region_write(struct vfu_server *s, struct vfu_req *r)
{
    struct vfu_region_rw rw;
    int ret;

    if (r->plen < sizeof(rw) || has_fds(r)) {
        return -EINVAL;
    }
    memcpy(&rw, r->payload, sizeof(rw));
    if (r->plen - sizeof(rw) != rw.count) {
        return -EINVAL;
    }
    ret = region_check(s, &rw, VFIO_REGION_INFO_FLAG_WRITE);
    if (ret) {
        return ret;
    }
    /* The device gets its own copy: the payload is the caller's. */
    memcpy(out_payload(s) + sizeof(rw), r->payload + sizeof(rw), rw.count);
    ret = s->ops->region_access(s->opaque, rw.region, rw.offset,
                                out_payload(s) + sizeof(rw), rw.count, true);
    if (ret) {
        return ret;
    }
    memcpy(out_payload(s), &rw, sizeof(rw));
    r->out_len = sizeof(rw);
    return 0;
}

static int cmd_reset(struct vfu_server *s, struct vfu_req *r)
{
    if (r->plen || has_fds(r)) {
        return -EINVAL;
    }
    if (!(s->desc.flags & VFIO_DEVICE_FLAGS_RESET) || !s->ops->reset) {
        return -ENOTSUP;
    }
    return s->ops->reset(s->opaque);
}

/* ---- dispatch ----------------------------------------------------------- */

typedef int (*cmd_fn)(struct vfu_server *s, struct vfu_req *r);

static const cmd_fn commands[] = {
    [VFU_CMD_VERSION]                   = cmd_version,
    [VFU_CMD_DMA_MAP]                   = cmd_dma_map,
    [VFU_CMD_DMA_UNMAP]                 = cmd_dma_unmap,
    [VFU_CMD_DEVICE_GET_INFO]           = cmd_get_info,
    [VFU_CMD_DEVICE_GET_REGION_INFO]    = cmd_get_region_info,
    [VFU_CMD_DEVICE_GET_IRQ_INFO]       = cmd_get_irq_info,
    [VFU_CMD_DEVICE_SET_IRQS]           = cmd_set_irqs,
    [VFU_CMD_REGION_READ]               = cmd_region_read,
    [VFU_CMD_REGION_WRITE]              = cmd_region_write,
    [VFU_CMD_DEVICE_RESET]              = cmd_reset,
};

static int dispatch(struct vfu_server *s, struct vfu_req *r, size_t len,
                    bool fds_dropped)
{
    uint32_t type = r->hdr.flags & VFU_F_TYPE_MASK;

    if (r->hdr.msg_size != len || (r->hdr.flags & ~VFU_F_KNOWN) ||
        type != VFU_F_TYPE_COMMAND || (r->hdr.flags & VFU_F_ERROR) ||
        fds_dropped) {
        return -EINVAL;
    }
    if (r->hdr.command >= sizeof(commands) / sizeof(commands[0]) ||
        !commands[r->hdr.command]) {
        return -ENOTSUP;
    }
    if (!s->negotiated && r->hdr.command != VFU_CMD_VERSION) {
        return -EINVAL;
    }
    return commands[r->hdr.command](s, r);
}

static void close_fds(int *fds, size_t nfds)
{
    size_t i;

    for (i = 0; i < nfds; i++) {
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
    }
}

int vfu_server_handle(struct vfu_server *s, const void *msg, size_t len,
                      int *fds, size_t nfds, bool fds_dropped,
                      struct vfu_reply *reply)
{
    struct vfu_req r = { .fds = fds, .nfds = nfds, .out_fd = -1 };
    struct vfu_hdr out;
    int ret;

    memset(reply, 0, sizeof(*reply));
    reply->buf = s->out;
    if (len < HDR_SIZE) {
        close_fds(fds, nfds);
        return -EBADMSG;
    }
    memcpy(&r.hdr, msg, HDR_SIZE);
    if ((r.hdr.flags & VFU_F_TYPE_MASK) == VFU_F_TYPE_REPLY) {
        close_fds(fds, nfds);
        return -EPROTO;
    }
    r.payload = (const uint8_t *)msg + HDR_SIZE;
    r.plen = len - HDR_SIZE;
    ret = dispatch(s, &r, len, fds_dropped);
    close_fds(fds, nfds);
    if (r.hdr.flags & VFU_F_NO_REPLY) {
        return ret;
    }
    out.msg_id = r.hdr.msg_id;
    out.command = r.hdr.command;
    out.flags = VFU_F_TYPE_REPLY;
    out.error = 0;
    if (ret) {
        out.flags |= VFU_F_ERROR;
        out.error = (uint32_t)-ret;
        r.out_len = 0;
    } else if (r.out_fd >= 0) {
        reply->fds[0] = r.out_fd;
        reply->nfds = 1;
    }
    out.msg_size = (uint32_t)(HDR_SIZE + r.out_len);
    memcpy(s->out, &out, HDR_SIZE);
    reply->len = out.msg_size;
    return ret;
}

/* ---- life cycle --------------------------------------------------------- */

static bool desc_valid(const struct vfu_device_desc *d)
{
    const uint32_t rflags = VFIO_REGION_INFO_FLAG_READ |
                            VFIO_REGION_INFO_FLAG_WRITE |
                            VFIO_REGION_INFO_FLAG_MMAP;
    uint32_t i;

    if (d->num_regions > VFU_MAX_REGIONS || d->num_irqs > VFU_MAX_IRQS ||
        d->max_data_xfer > VFU_MAX_DATA_XFER_LIMIT) {
        return false;
    }
    for (i = 0; i < d->num_regions; i++) {
        const struct vfu_region_desc *r = &d->region[i];

        if ((r->flags & ~rflags) || (!r->size && r->flags) ||
            ((r->flags & VFIO_REGION_INFO_FLAG_MMAP) && r->mmap_fd < 0)) {
            return false;
        }
    }
    for (i = 0; i < d->num_irqs; i++) {
        if (d->irq[i].count > VFU_MAX_IRQ_VECTORS) {
            return false;
        }
    }
    return true;
}

size_t vfu_server_max_msg_size(const struct vfu_server *s)
{
    size_t most = sizeof(struct vfu_region_rw) + s->desc.max_data_xfer;

    if (most < sizeof(struct vfu_version) + VFU_MAX_VERSION_JSON) {
        most = sizeof(struct vfu_version) + VFU_MAX_VERSION_JSON;
    }
    if (most < sizeof(struct vfu_irq_set) + VFU_MAX_IRQ_VECTORS) {
        most = sizeof(struct vfu_irq_set) + VFU_MAX_IRQ_VECTORS;
    }
    return HDR_SIZE + most;
}

bool vfu_server_negotiated(const struct vfu_server *s)
{
    return s->negotiated;
}

struct vfu_server *vfu_server_create(const struct vfu_device_desc *desc,
                                     const struct vfu_device_ops *ops,
                                     void *opaque)
{
    struct vfu_server *s;
    uint32_t i, v;

    if (!desc || !ops || !desc_valid(desc)) {
        errno = EINVAL;
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->desc = *desc;
    s->ops = ops;
    s->opaque = opaque;
    if (!s->desc.max_data_xfer) {
        s->desc.max_data_xfer = VFU_DEFAULT_MAX_DATA_XFER;
    }
    if (!s->desc.max_dma_maps) {
        s->desc.max_dma_maps = VFU_DEFAULT_MAX_DMA_MAPS;
    }
    pthread_rwlock_init(&s->dma_lock, NULL);
    for (i = 0; i < VFU_MAX_REGIONS; i++) {
        s->desc.region[i].mmap_fd = -1;
    }
    for (i = 0; i < s->desc.num_regions; i++) {
        if (desc->region[i].flags & VFIO_REGION_INFO_FLAG_MMAP) {
            s->desc.region[i].mmap_fd = fcntl(desc->region[i].mmap_fd,
                                              F_DUPFD_CLOEXEC, 0);
            if (s->desc.region[i].mmap_fd < 0) {
                goto fail;
            }
        }
    }
    for (i = 0; i < s->desc.num_irqs; i++) {
        s->irq_fds[i] = malloc((s->desc.irq[i].count + 1) * sizeof(int));
        if (!s->irq_fds[i]) {
            goto fail;
        }
        for (v = 0; v < s->desc.irq[i].count; v++) {
            s->irq_fds[i][v] = -1;
        }
    }
    s->out_size = vfu_server_max_msg_size(s);
    s->out = malloc(s->out_size);
    if (!s->out) {
        goto fail;
    }
    return s;

fail:
    vfu_server_destroy(s);
    errno = ENOMEM;
    return NULL;
}

static bool irq_any_fd(const struct vfu_server *s, uint32_t index)
{
    uint32_t v;

    for (v = 0; s->irq_fds[index] && v < s->desc.irq[index].count; v++) {
        if (s->irq_fds[index][v] >= 0) {
            return true;
        }
    }
    return false;
}

void vfu_server_disconnect(struct vfu_server *s)
{
    uint32_t i;

    dma_remove_all(s);
    for (i = 0; i < s->desc.num_irqs; i++) {
        if (!irq_any_fd(s, i)) {
            continue;
        }
        /* As the client's "disable every vector" would. */
        if (s->ops->set_irqs) {
            s->ops->set_irqs(s->opaque, i, 0, 0, VFIO_IRQ_SET_DATA_NONE |
                             VFIO_IRQ_SET_ACTION_TRIGGER, NULL, NULL);
        }
        irq_close_all(s, i);
    }
    s->negotiated = false;
}

void vfu_server_destroy(struct vfu_server *s)
{
    uint32_t i;

    if (!s) {
        return;
    }
    vfu_server_disconnect(s);
    for (i = 0; i < VFU_MAX_REGIONS; i++) {
        if (s->desc.region[i].mmap_fd >= 0) {
            close(s->desc.region[i].mmap_fd);
        }
    }
    for (i = 0; i < VFU_MAX_IRQS; i++) {
        free(s->irq_fds[i]);
    }
    free(s->dma);
    free(s->out);
    pthread_rwlock_destroy(&s->dma_lock);
    free(s);
}
