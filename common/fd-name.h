/* The name an open object has below a tree, as the kernel tells it in
 * /proc/self/fd. oz0fs knows its objects by identity and asks for a name
 * only to tell a person something (the mount's user.oz0fs.why). The name is
 * a hint, never an authority: a rename may change it the moment it is read,
 * and a file with several links shows the one it was reached by; the caller
 * walks the name again and checks that it leads to the object. */
#pragma once

/* The path of the object open as FD, relative to the folder open as ROOTFD,
 * read from their links in PROCFD (an fd of /proc/self/fd): "." for the root
 * itself, in a malloc'd *REL. Returns 0; -ENOENT when the object has no name
 * (an O_TMPFILE, or removed while open); -EXDEV when its name does not lie
 * below the root's (moved out of the tree, or a name the kernel cannot give
 * from here); -ENAMETOOLONG; -ENOMEM; or the -errno of reading a link. */
int fd_name_below(int procfd, int rootfd, int fd, char **rel);
