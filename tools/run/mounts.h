/* The sandbox's mounts, made with the new mount API on descriptors: a
 * mount point is an O_PATH descriptor reached without following any link
 * (ARCHITECTURE.md: "Mount points are made fd-relative, never through a
 * link"), so a link planted where a mount goes is refused, never followed. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* PATH equals BASE or lies below it, both spelt alike (absolute and
 * link-free, or relative to the same folder); every path lies below "/". */
bool mounts_path_within(const char *path, const char *base);

/* An O_PATH descriptor of the absolute, link-free PATH, reached from "/"
 * without following a link anywhere: a descriptor, or -errno (-ELOOP for a
 * link on the way). */
int mounts_open(const char *path);
/* The same below DIRFD for the relative PATH. */
int mounts_open_at(int dirfd, const char *path);

/* A new detached tmpfs (MODE for its root), read-only when RO: a mount
 * descriptor, or -errno. */
int mounts_new_tmpfs(mode_t mode, bool ro);
/* A new detached proc of the caller's pid namespace: a mount descriptor, or -errno. */
int mounts_new_proc(void);
/* A detached copy of the mount tree at the O_PATH descriptor FD (with what
 * is mounted below it when RECURSIVE): a mount descriptor, or -errno. */
int mounts_clone(int fd, bool recursive);
/* Sets (RO) or clears read-only, and sets nosuid and nodev, on the mount at FD,
 * and on every mount below it when RECURSIVE. 0, or -errno. */
int mounts_set_readonly(int fd, bool ro, bool recursive);
/* Attaches the detached mount MNTFD on the O_PATH descriptor TARGET. 0, or -errno. */
int mounts_attach(int mntfd, int target);

/* The O_PATH descriptor of the folder PATH below DIRFD, made where missing
 * (each step without following a link, mode 0755): for mount points in a
 * tmpfs the sandbox made itself. A descriptor, or -errno. */
int mounts_make_dirs(int dirfd, const char *path);
/* The same for an empty file PATH (its folders made as above), as the
 * mount point of a file. */
int mounts_make_file(int dirfd, const char *path);
