/* userns.h - the user-namespace probe and the hints for clone() refusals. */
#ifndef UCB_USERNS_H
#define UCB_USERNS_H

/* Try unshare(CLONE_NEWUSER) in a throwaway child, the only reliable probe (the sysctls that
 * restrict it differ by distribution).  0 = it works, > 0 = the errno, < 0 = the child was
 * killed by signal -r (e.g. a seccomp filter), INT_MIN = fork failed. */
int ucb_userns_probe (void);

/* Explain a clone()/unshare()/fork() errno with what to change; returns a static string. */
const char *ucb_clone_hint (int errnum);

#endif
