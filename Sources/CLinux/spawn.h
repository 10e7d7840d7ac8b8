// Starting a child that cannot outlive its parent (fork + exec), for UnixSupport's
// SpawnedProcess. In C because what runs between fork and exec must be async-signal-safe.
#ifndef CLINUX_SPAWN_H
#define CLINUX_SPAWN_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

// Declared here rather than through <sys/prctl.h>, <sys/syscall.h> and _GNU_SOURCE, as
// shim.h does: headers outside Swift's Glibc module would become part of this one, and their
// types (pid_t…) would then shadow Glibc's in Swift. All are in glibc 2.36 (Debian 12).
extern int pipe2(int pipefd[2], int flags);
extern int prctl(int option, ...);
extern pid_t gettid(void);
extern int pidfd_open(pid_t pid, unsigned int flags);
extern int close_range(unsigned int first, unsigned int last, int flags);
static const int clinux_pr_set_pdeathsig = 1;         // PR_SET_PDEATHSIG, <linux/prctl.h>
static const int clinux_close_range_cloexec = 1 << 2;  // CLOSE_RANGE_CLOEXEC, <linux/close_range.h>

/// clinux_spawn's options: PR_SET_PDEATHSIG = SIGKILL, and a process group of the child's own.
enum { clinux_spawn_dies_with_thread = 1, clinux_spawn_own_group = 2 };

/// Whether the calling thread is the process's main thread (its thread id is the pid).
static inline int clinux_on_main_thread(void) { return gettid() == getpid(); }

/// A descriptor that becomes readable when process `pid` (a child) exits, or -1 (pidfd_open(2)).
static inline int clinux_pidfd_open(pid_t pid) { return pidfd_open(pid, 0); }

/// Marks every descriptor from 3 up close-on-exec (in a forked child, before exec).
static inline void clinux_cloexec_from_3(void) {
    if (close_range(3U, ~0U, clinux_close_range_cloexec) == 0) return;
    struct rlimit limit;  // kernels before 5.11: one fcntl per possible descriptor
    int last = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? (int)limit.rlim_cur : 65536;
    for (int fd = 3; fd < last; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/// The child's standard descriptors; stderr -1 shares the parent's.
struct clinux_spawn_fds {
    int stdin_fd, stdout_fd, stderr_fd;
};

/// In a forked child: set up and exec, or write errno to `report` and exit 127.
static inline void clinux_spawn_child(const char *path, char *const argv[], char *const envp[],
                                      struct clinux_spawn_fds fds, const sigset_t *blocked, int options,
                                      pid_t parent, int report) {
    // SIGKILL when the forking thread ends; if the parent already died, getppid has changed.
    if ((options & clinux_spawn_dies_with_thread) &&
        (prctl(clinux_pr_set_pdeathsig, SIGKILL) != 0 || getppid() != parent))
        _exit(127);
    if ((options & clinux_spawn_own_group) && setpgid(0, 0) != 0) _exit(127);
    int stderr_ok = fds.stderr_fd < 0 || dup2(fds.stderr_fd, 2) >= 0;
    if (dup2(fds.stdin_fd, 0) >= 0 && dup2(fds.stdout_fd, 1) >= 0 && stderr_ok) {
        clinux_cloexec_from_3();
        struct sigaction defaults = {0};
        defaults.sa_handler = SIG_DFL;
        for (int signal = 1; signal < NSIG; signal++) sigaction(signal, &defaults, NULL);
        sigprocmask(SIG_SETMASK, blocked, NULL);
        execve(path, argv, envp);
    }
    int error = errno;
    ssize_t written = write(report, &error, sizeof error);
    (void)written;
    _exit(127);
}

/// Forks and execs `path` (`argv`, `envp`, both NULL-terminated) with `fds` as its fd 0-2,
/// no other descriptor, and default signal handling with `blocked` blocked. With
/// clinux_spawn_dies_with_thread, PR_SET_PDEATHSIG = SIGKILL: the kernel kills it when the
/// calling *thread* ends (see SpawnedProcess for why that is the main thread).
/// Returns the pid, or -1 with the fork or exec error in `*error`.
static inline pid_t clinux_spawn(const char *path, char *const argv[], char *const envp[],
                                 struct clinux_spawn_fds fds, const sigset_t *blocked, int options, int *error) {
    int report[2];  // close-on-exec: end of file at a successful exec, else the child's errno
    if (pipe2(report, O_CLOEXEC) != 0) {
        *error = errno;
        return -1;
    }
    // No signal handler of ours may run in the child between fork and exec.
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) clinux_spawn_child(path, argv, envp, fds, blocked, options, parent, report[1]);
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *error = fork_error;
        return -1;
    }
    int child_error = 0;
    ssize_t count;
    do count = read(report[0], &child_error, sizeof child_error);
    while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof child_error) {
        waitpid(pid, NULL, 0);
        *error = child_error;
        return -1;
    }
    return pid;
}

#endif
