#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "fs/inode.h"

/* Longest handle we keep inline; ext4's is 8 bytes, btrfs's 40, and the
 * kernel's MAX_HANDLE_SZ 128. A longer one makes the inode pin its fd. */
#define INODE_HANDLE_MAX 128
/* Distinct file systems (st_dev) below the root whose objects we reopen by
 * handle; past it, inodes of a further one pin their fd. */
#define INODE_MOUNTS_MAX  64
#define INODE_BUCKETS_MIN 1024u

struct inode {
	struct inode *hash_next;
	struct inode *lru_prev; /* in the fd LRU while fd is cached, not pinned */
	struct inode *lru_next;
	uint64_t dev;       /* immutable */
	uint64_t ino;       /* immutable */
	uint64_t nlookup;   /* the kernel's references; under the table lock */
	int fd;             /* cached or pinned O_PATH fd, -1 when none; under the lock */
	uint32_t users;     /* operations holding fd (struct ifd); under the lock */
	uint16_t type;      /* S_IFMT bits; immutable */
	uint8_t pinned : 1; /* no handle: fd stays until forgotten; immutable */
	uint8_t hashed : 1; /* reachable from the hash; under the lock */
	uint8_t in_lru : 1; /* under the lock */
	uint8_t mount;      /* index into table->mounts; immutable */
	uint8_t handle_len; /* immutable, like the handle */
	int32_t handle_type;
	unsigned char handle[];
};

struct mount_fd {
	uint64_t dev;
	int fd; /* an O_RDONLY directory on that file system, for open_by_handle_at */
};

struct inode_table {
	pthread_mutex_t lock;
	struct inode **buckets; /* under lock */
	size_t n_buckets;       /* a power of two; under lock */
	size_t count;           /* hashed inodes; under lock */
	size_t trim_mark;       /* count when memory was last given back; under lock */
	struct inode *lru_head; /* most recently used; under lock */
	struct inode *lru_tail;
	size_t n_cached;                          /* fds in the LRU; under lock */
	size_t n_pinned;                          /* pinned fds, root included; under lock */
	unsigned cache_size;                      /* immutable */
	bool use_handles;                         /* immutable after creation */
	int proc_fd;                              /* /proc/self/fd; immutable */
	struct inode *root;                       /* immutable */
	struct mount_fd mounts[INODE_MOUNTS_MAX]; /* append-only under lock; an entry never changes */
	size_t n_mounts;
};

/* struct file_handle with room for the bytes, on the stack. */
union handle_buf {
	struct file_handle fh;
	unsigned char bytes[sizeof(struct file_handle) + INODE_HANDLE_MAX];
};

struct inode_id inode_id(const struct inode *i)
{
	return (struct inode_id){.dev = i->dev, .ino = i->ino};
}

struct inode *inode_table_root(struct inode_table *t)
{
	return t->root;
}

bool inode_table_uses_handles(const struct inode_table *t)
{
	return t->use_handles;
}

int inode_table_proc_fd(const struct inode_table *t)
{
	return t->proc_fd;
}

size_t inode_table_count(struct inode_table *t)
{
	pthread_mutex_lock(&t->lock);
	size_t n = t->count;
	pthread_mutex_unlock(&t->lock);
	return n;
}

size_t inode_table_fds(struct inode_table *t)
{
	pthread_mutex_lock(&t->lock);
	size_t n = t->n_cached + t->n_pinned;
	pthread_mutex_unlock(&t->lock);
	return n;
}

static size_t bucket_of(uint64_t dev, uint64_t ino, size_t n_buckets)
{
	uint64_t h = (ino ^ (dev << 32 | dev >> 32)) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (n_buckets - 1);
}

/* ---- Hash (under lock) ---------------------------------------------------- */

static struct inode *hash_find(struct inode_table *t, uint64_t dev, uint64_t ino)
{
	for (struct inode *i = t->buckets[bucket_of(dev, ino, t->n_buckets)]; i; i = i->hash_next)
		if (i->ino == ino && i->dev == dev)
			return i;
	return NULL;
}

/* Rehashes into N buckets; on ENOMEM the old array stays (chains get longer). */
static void hash_resize(struct inode_table *t, size_t n)
{
	struct inode **b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (size_t k = 0; k < t->n_buckets; k++) {
		struct inode *i = t->buckets[k], *next;
		for (; i; i = next) {
			next = i->hash_next;
			size_t at = bucket_of(i->dev, i->ino, n);
			i->hash_next = b[at];
			b[at] = i;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = n;
}

static void hash_insert(struct inode_table *t, struct inode *i)
{
	size_t at = bucket_of(i->dev, i->ino, t->n_buckets);
	i->hash_next = t->buckets[at];
	t->buckets[at] = i;
	i->hashed = 1;
	t->count++;
	if (t->count > t->n_buckets)
		hash_resize(t, t->n_buckets * 2);
	if (t->count > t->trim_mark)
		t->trim_mark = t->count;
}

static void hash_remove(struct inode_table *t, struct inode *i)
{
	struct inode **p = &t->buckets[bucket_of(i->dev, i->ino, t->n_buckets)];
	for (; *p; p = &(*p)->hash_next) {
		if (*p == i) {
			*p = i->hash_next;
			break;
		}
	}
	i->hashed = 0;
	t->count--;
	/* Give the bucket array back when most of the tree was forgotten. */
	if (t->n_buckets > INODE_BUCKETS_MIN && t->count < t->n_buckets / 8)
		hash_resize(t, t->n_buckets / 2);
}

/* ---- fd LRU (under lock) -------------------------------------------------- */

static void lru_unlink(struct inode_table *t, struct inode *i)
{
	if (i->lru_prev)
		i->lru_prev->lru_next = i->lru_next;
	else
		t->lru_head = i->lru_next;
	if (i->lru_next)
		i->lru_next->lru_prev = i->lru_prev;
	else
		t->lru_tail = i->lru_prev;
	i->lru_prev = i->lru_next = NULL;
	i->in_lru = 0;
}

static void lru_push_front(struct inode_table *t, struct inode *i)
{
	i->lru_prev = NULL;
	i->lru_next = t->lru_head;
	if (t->lru_head)
		t->lru_head->lru_prev = i;
	t->lru_head = i;
	if (!t->lru_tail)
		t->lru_tail = i;
	i->in_lru = 1;
}

static void lru_touch(struct inode_table *t, struct inode *i)
{
	if (t->lru_head == i)
		return;
	lru_unlink(t, i);
	lru_push_front(t, i);
}

/* Closes the least recently used fds past the cache size. An fd in use by an
 * operation is skipped: it is closed when a later insertion finds it idle. */
static void lru_evict(struct inode_table *t)
{
	struct inode *i = t->lru_tail;
	while (t->n_cached > t->cache_size && i) {
		struct inode *prev = i->lru_prev;
		if (i->users == 0) {
			lru_unlink(t, i);
			close(i->fd);
			i->fd = -1;
			t->n_cached--;
		}
		i = prev;
	}
}

/* Adopts FD as I's cached fd. */
static void fd_cache_insert(struct inode_table *t, struct inode *i, int fd)
{
	i->fd = fd;
	lru_push_front(t, i);
	t->n_cached++;
	lru_evict(t);
}

/* Closes every idle cached fd, for an open that ran out of descriptors (the
 * callers' open files share the limit with the cache). Returns whether any
 * was closed, so the open is worth retrying. */
static bool fd_cache_shed(struct inode_table *t)
{
	pthread_mutex_lock(&t->lock);
	size_t before = t->n_cached;
	unsigned size = t->cache_size;
	t->cache_size = 0;
	lru_evict(t);
	t->cache_size = size;
	bool shed = t->n_cached < before;
	pthread_mutex_unlock(&t->lock);
	return shed;
}

/* ---- Handles -------------------------------------------------------------- */

static int handle_of(int fd, union handle_buf *hb)
{
	int mount_id;

	hb->fh.handle_bytes = INODE_HANDLE_MAX;
	if (name_to_handle_at(fd, "", &hb->fh, &mount_id, AT_EMPTY_PATH) < 0)
		return negative_errno();
	return 0;
}

static bool handle_equal(const struct inode *i, const union handle_buf *hb)
{
	return i->handle_len == hb->fh.handle_bytes && i->handle_type == hb->fh.handle_type &&
	       memcmp(i->handle, hb->fh.f_handle, i->handle_len) == 0;
}

static int open_by_handle(struct inode_table *t, const struct inode *i, int flags)
{
	union handle_buf hb;

	hb.fh.handle_bytes = i->handle_len;
	hb.fh.handle_type = i->handle_type;
	memcpy(hb.fh.f_handle, i->handle, i->handle_len);
	int fd = open_by_handle_at(t->mounts[i->mount].fd, &hb.fh, flags | O_CLOEXEC);
	if (fd < 0 && errno == EMFILE && fd_cache_shed(t))
		fd = open_by_handle_at(t->mounts[i->mount].fd, &hb.fh, flags | O_CLOEXEC);
	/* A handle of a file being freed while its inode number is taken again
	 * (ext4 reuses one at once) can fail with ENOMEM from the inode cache
	 * rather than ESTALE; either way the object is gone, and ESTALE makes
	 * the kernel look the name up again instead of failing the caller. */
	if (fd < 0 && errno == ENOMEM)
		return -ESTALE;
	return fd < 0 ? negative_errno() : fd;
}

/* The index of DEV's mount fd, registering FD's directory when DEV is new;
 * -ENOENT when none can be had (the inode then pins its fd). Under lock. */
static int mount_index(struct inode_table *t, uint64_t dev, int fd, mode_t type)
{
	for (size_t k = 0; k < t->n_mounts; k++)
		if (t->mounts[k].dev == dev)
			return (int)k;
	/* A file system is entered through its root directory, so the first
	 * object seen on it is normally a directory; open_by_handle_at wants a
	 * real (not O_PATH) fd on it. */
	if (!S_ISDIR(type) || t->n_mounts == INODE_MOUNTS_MAX)
		return -ENOENT;
	int mfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return negative_errno();
	t->mounts[t->n_mounts] = (struct mount_fd){.dev = dev, .fd = mfd};
	return (int)t->n_mounts++;
}

/* ---- Inodes --------------------------------------------------------------- */

static struct inode *inode_alloc(const struct stat *st, const union handle_buf *hb)
{
	size_t hlen = hb ? hb->fh.handle_bytes : 0;
	struct inode *i = calloc(1, sizeof(*i) + hlen);
	if (!i)
		return NULL;
	i->dev = st->st_dev;
	i->ino = st->st_ino;
	i->type = st->st_mode & S_IFMT;
	i->fd = -1;
	if (hb) {
		i->handle_len = (uint8_t)hlen;
		i->handle_type = hb->fh.handle_type;
		memcpy(i->handle, hb->fh.f_handle, hlen);
	}
	return i;
}

/* Frees an inode that is unhashed and unused. Under lock. */
static void inode_destroy(struct inode_table *t, struct inode *i)
{
	if (i->in_lru) {
		lru_unlink(t, i);
		t->n_cached--;
	} else if (i->pinned && i->fd >= 0) {
		t->n_pinned--;
	}
	if (i->fd >= 0)
		close(i->fd);
	free(i);
}

/* Publishes NEW for the object FD names, or takes a reference on the inode
 * another thread published meanwhile. Under lock; consumes FD. */
static struct inode *inode_publish(struct inode_table *t, struct inode *new, int fd, bool with_handle)
{
	int at = with_handle ? mount_index(t, new->dev, fd, new->type) : -ENOENT;
	if (at < 0) {
		new->pinned = 1;
		new->fd = fd;
		t->n_pinned++;
	} else {
		new->mount = (uint8_t)at;
		fd_cache_insert(t, new, fd);
	}
	new->nlookup = 1;
	hash_insert(t, new);
	return new;
}

/* Takes a lookup reference on a known inode, donating FD to its cache when it
 * has none. Under lock; returns whether FD was taken. */
static bool inode_ref(struct inode_table *t, struct inode *i, int fd)
{
	i->nlookup++;
	if (i->fd >= 0 || i->pinned)
		return false;
	fd_cache_insert(t, i, fd);
	return true;
}

/* The hashed inode of (dev, ino) if it is the same object; an entry whose
 * handle differs names an object that is gone (its inode number reused), and
 * is unhashed so the new object gets its own. Under lock. */
static struct inode *find_same(struct inode_table *t, const struct stat *st, const union handle_buf *hb)
{
	struct inode *i = hash_find(t, st->st_dev, st->st_ino);
	if (!i || i->pinned || !hb || handle_equal(i, hb))
		return i;
	hash_remove(t, i);
	return NULL;
}

/* A lookup reference on the hashed inode that is the same object as ST
 * (find_same), donating *FD to its cache when it has none (*FD is then -1);
 * NULL when there is none. Under lock. */
static struct inode *ref_same(struct inode_table *t, const struct stat *st, const union handle_buf *hb, int *fd)
{
	struct inode *i = find_same(t, st, hb);
	if (i && inode_ref(t, i, *fd))
		*fd = -1;
	return i;
}

/* The first look, before any handle is made: the hashed inode of ST's (dev,
 * ino) with one more lookup reference, if it holds an fd (cached or pinned).
 * An object with an open descriptor is alive, so no other object bears its
 * number on its file system, and the one just looked up is that one, without
 * a handle to tell them apart. It spares name_to_handle_at, a third of a
 * lookup, for every name the table knows (an entry the kernel revalidates, a
 * hard link). Otherwise NULL, with *KNOWN telling whether the number is
 * hashed at all: only then is there an inode whose handle must be compared
 * before a new one is made. */
static struct inode *find_held(struct inode_table *t, const struct stat *st, bool *known)
{
	pthread_mutex_lock(&t->lock);
	struct inode *i = hash_find(t, st->st_dev, st->st_ino);
	*known = i != NULL;
	if (i && i->fd >= 0)
		i->nlookup++;
	else
		i = NULL;
	pthread_mutex_unlock(&t->lock);
	return i;
}

/* The handle is made and the inode allocated outside the lock, so a new
 * inode takes it twice: find_held's look, then the publication. */
int inode_lookup(struct inode_table *t, struct inode *parent, const char *name, struct stat *st, struct inode **out)
{
	_cleanup_ifd_ struct ifd p = {0};
	union handle_buf hb;
	bool with_handle, known;

	int r = inode_fd_acquire(t, parent, &p);
	if (r < 0)
		return r;
	_cleanup_close_ int fd = openat(p.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EMFILE && fd_cache_shed(t))
		fd = openat(p.fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return negative_errno();
	struct inode *i = find_held(t, st, &known);
	if (i) {
		*out = i;
		return 0;
	}
	with_handle = t->use_handles && handle_of(fd, &hb) >= 0;

	/* A known number without an fd: the handle tells whether it is still
	 * this object, before anything is allocated. */
	if (known) {
		pthread_mutex_lock(&t->lock);
		i = ref_same(t, st, with_handle ? &hb : NULL, &fd);
		pthread_mutex_unlock(&t->lock);
		if (i) {
			*out = i;
			return 0;
		}
	}

	struct inode *new = inode_alloc(st, with_handle ? &hb : NULL);
	if (!new)
		return -ENOMEM;
	pthread_mutex_lock(&t->lock);
	/* another thread may have published it since the first look */
	i = ref_same(t, st, with_handle ? &hb : NULL, &fd);
	if (!i)
		i = inode_publish(t, TAKE_PTR(new), TAKE_FD(fd), with_handle);
	pthread_mutex_unlock(&t->lock);
	free(new);
	*out = i;
	return 0;
}

/* Whether to give memory back to the system: glibc keeps freed small blocks
 * in its arenas, so after most of a large tree was forgotten the daemon would
 * otherwise stay at its peak. Under lock. */
static bool should_trim(struct inode_table *t)
{
	if (t->trim_mark <= t->count + 10000 || t->count >= t->trim_mark / 2)
		return false;
	t->trim_mark = t->count;
	return true;
}

void inode_hold(struct inode_table *t, struct inode *i)
{
	if (i == t->root)
		return; /* never forgotten either */
	pthread_mutex_lock(&t->lock);
	i->nlookup++;
	pthread_mutex_unlock(&t->lock);
}

void inode_forget(struct inode_table *t, struct inode *i, uint64_t n)
{
	if (i == t->root)
		return;
	pthread_mutex_lock(&t->lock);
	i->nlookup = n < i->nlookup ? i->nlookup - n : 0;
	if (i->nlookup == 0) {
		if (i->hashed)
			hash_remove(t, i);
		if (i->users == 0)
			inode_destroy(t, i);
	}
	bool trim = should_trim(t);
	pthread_mutex_unlock(&t->lock);
	if (trim)
		malloc_trim(0);
}

int inode_adopt(struct inode_table *t, int fd, struct stat *st, struct inode **out)
{
	char name[16];

	if (fstat(fd, st) < 0)
		return negative_errno();
	snprintf(name, sizeof(name), "%d", fd);
	_cleanup_close_ int path_fd = openat(t->proc_fd, name, O_PATH | O_CLOEXEC);
	if (path_fd < 0)
		return negative_errno();
	_cleanup_free_ struct inode *new = inode_alloc(st, NULL);
	if (!new)
		return -ENOMEM;
	pthread_mutex_lock(&t->lock);
	struct inode *i = hash_find(t, st->st_dev, st->st_ino);
	if (!i)
		i = inode_publish(t, TAKE_PTR(new), TAKE_FD(path_fd), false);
	else if (inode_ref(t, i, path_fd))
		path_fd = -1;
	pthread_mutex_unlock(&t->lock);
	*out = i;
	return 0;
}

/* ---- fds for one operation ------------------------------------------------ */

/* Takes a use of I's fd if it has one. Under lock. */
static bool fd_take_cached(struct inode_table *t, struct inode *i)
{
	if (i->fd < 0)
		return false;
	i->users++;
	if (i->in_lru)
		lru_touch(t, i);
	return true;
}

int inode_fd_acquire(struct inode_table *t, struct inode *i, struct ifd *out)
{
	*out = (struct ifd){.table = t, .inode = NULL, .fd = -1};

	pthread_mutex_lock(&t->lock);
	bool cached = fd_take_cached(t, i);
	pthread_mutex_unlock(&t->lock);
	if (!cached) {
		/* Only handle inodes lose their fd: pinned ones keep it for life. */
		int fd = open_by_handle(t, i, O_PATH);
		if (fd < 0)
			return fd;
		pthread_mutex_lock(&t->lock);
		if (fd_take_cached(t, i)) {
			close(fd); /* another thread reopened it first */
		} else {
			i->users++;
			fd_cache_insert(t, i, fd);
		}
		pthread_mutex_unlock(&t->lock);
	}
	out->inode = i;
	out->fd = i->fd; /* stable while we hold a use */
	return 0;
}

void inode_fd_release(struct ifd *f)
{
	struct inode_table *t = f->table;
	struct inode *i = f->inode;

	if (!i)
		return;
	pthread_mutex_lock(&t->lock);
	i->users--;
	if (i->users == 0 && i->nlookup == 0 && !i->hashed && i != t->root)
		inode_destroy(t, i);
	else if (i->users == 0 && t->n_cached > t->cache_size)
		lru_evict(t);
	pthread_mutex_unlock(&t->lock);
	f->inode = NULL;
	f->fd = -1;
}

int inode_open(struct inode_table *t, struct inode *i, int flags)
{
	char name[16];

	flags &= ~(O_CREAT | O_EXCL | O_NOFOLLOW);
	if (!i->pinned)
		return open_by_handle(t, i, flags);
	/* A pinned O_PATH fd is reopened through its /proc/self/fd entry: the
	 * magic link names the object itself, never a path in the tree. */
	_cleanup_ifd_ struct ifd f = {0};
	int r = inode_fd_acquire(t, i, &f);
	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "%d", f.fd);
	int fd = openat(t->proc_fd, name, flags | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

/* ---- The table ------------------------------------------------------------ */

/* Whether this daemon may reopen by handle: it needs CAP_DAC_READ_SEARCH and
 * a file system that exports handles. */
static bool handles_work(int rootfd)
{
	union handle_buf hb;

	if (handle_of(rootfd, &hb) < 0) {
		log_debug("file handles unavailable (%m): each inode pins an fd");
		return false;
	}
	int fd = open_by_handle_at(rootfd, &hb.fh, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		log_debug("open_by_handle_at refused (%m; no CAP_DAC_READ_SEARCH?): each inode pins an fd, "
		          "so the kernel may hold at most RLIMIT_NOFILE inodes and lookups past it fail with EMFILE");
		return false;
	}
	close(fd);
	return true;
}

static struct inode *root_new(int rootfd)
{
	struct stat st;

	if (fstat(rootfd, &st) < 0)
		return NULL;
	struct inode *root = inode_alloc(&st, NULL);
	if (!root)
		return NULL;
	root->pinned = 1;
	root->fd = rootfd;
	root->nlookup = 1;
	return root;
}

int inode_table_new(int rootfd, unsigned fd_cache_size, bool use_handles, struct inode_table **out)
{
	struct stat st;
	_cleanup_free_ struct inode_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (fstat(rootfd, &st) < 0)
		return negative_errno();
	t->buckets = calloc(INODE_BUCKETS_MIN, sizeof(*t->buckets));
	if (!t->buckets)
		return -ENOMEM;
	t->n_buckets = INODE_BUCKETS_MIN;
	t->proc_fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	t->root = root_new(rootfd);
	if (t->proc_fd < 0 || !t->root) {
		int r = negative_errno();
		free(t->buckets);
		free(t->root);
		if (t->proc_fd >= 0)
			close(t->proc_fd);
		return r;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->cache_size = fd_cache_size ? fd_cache_size : 1;
	t->use_handles = use_handles && handles_work(rootfd);
	t->mounts[0] = (struct mount_fd){.dev = st.st_dev, .fd = rootfd};
	t->n_mounts = 1;
	t->n_pinned = 1;
	*out = TAKE_PTR(t);
	return 0;
}

void inode_table_free(struct inode_table *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->n_buckets; k++) {
		struct inode *i = t->buckets[k], *next;
		for (; i; i = next) {
			next = i->hash_next;
			if (i->fd >= 0)
				close(i->fd);
			free(i);
		}
	}
	for (size_t k = 1; k < t->n_mounts; k++)
		close(t->mounts[k].fd);
	close(t->root->fd);
	free(t->root);
	close(t->proc_fd);
	free(t->buckets);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
