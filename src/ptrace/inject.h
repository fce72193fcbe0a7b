/*
 * System calls made by a thread of the target on causaltop's behalf, as
 * gdb's inferior calls are: the thread must be in a ptrace-stop that we
 * have not restarted.  Its registers and the two bytes of text under its
 * PC are saved, a `syscall` instruction is written there, the thread is
 * single-stepped over it, and everything is put back.  x86-64 only.
 */
#ifndef CT_INJECT_H
# define CT_INJECT_H

# include <stdint.h>
# include <sys/types.h>

/*
 * Run system call nr with args[0..6) in thread tid (stopped).  Returns
 * 0 with the call's return value in *ret (a -errno on failure, as the
 * kernel gives it), or -1 with errno when the injection itself failed
 * (the thread is gone: ESRCH; not stopped; not x86-64: ENOSYS).  A
 * signal that arrives meanwhile is kept in *pending_sig (0: none) for
 * the caller to pass on at the thread's restart: none is lost.
 */
int inject_syscall(pid_t tid, long nr, const uint64_t args[6], int64_t *ret,
		   int *pending_sig);

#endif
