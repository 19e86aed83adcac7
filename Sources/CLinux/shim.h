#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

/* The Linux calls that Swift's Glibc module does not export (epoll and two GNU extensions).
   Empty on other systems. */
#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/socket.h>
#include <pthread.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

static inline int CLinux_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags) {
    return accept4(fd, addr, addrlen, flags);
}

static inline int CLinux_pthread_setname_np(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}
#endif

#endif
