#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

/* The Linux calls that Swift's Glibc module does not export (epoll and the GNU extensions below).
   Empty on other systems. */
#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/socket.h>
#include <pthread.h>
#include <spawn.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);
extern int pipe2(int fds[2], int flags);
extern int mkostemp(char *template_, int flags);
/* glibc 2.34. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int CLinux_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags) {
    return accept4(fd, addr, addrlen, flags);
}

static inline int CLinux_pthread_setname_np(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}

static inline int CLinux_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

static inline int CLinux_mkostemp(char *template_, int flags) {
    return mkostemp(template_, flags);
}

static inline int CLinux_posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif

#endif
