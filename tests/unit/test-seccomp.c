/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-seccomp.c - Docker-format seccomp profiles: what gets built, what a loaded filter does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "cli/doc.h"
#include "cli/seccomp-profile.h"
#include "core/util.h"
#include "host/seccomp.h"

/* Docker's default capability set (moby's oci/caps/defaults.go). */
static const int docker_caps[] = {
  CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FSETID,           CAP_FOWNER,
  CAP_MKNOD,   CAP_NET_RAW,      CAP_SETGID,           CAP_SETUID,
  CAP_SETFCAP, CAP_SETPCAP,      CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT,
  CAP_KILL,    CAP_AUDIT_WRITE,
};

/* Read `path` ("docker": the embedded one) and build it, as a run does (cli/cmd-run.c reads,
 * engine/runtime.c builds); `st` zeroed either way. */
static int
build_path (const char *path, int opt, const int *caps, size_t ncaps, struct ucb_seccomp **s,
            struct ucb_seccomp_stats *st, ucb_error_t *err)
{
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p = NULL;
  struct ucb_seccomp_opts o = { .optimize = opt, .caps = caps, .ncaps = ncaps };

  *s = NULL;
  if (st)
    memset (st, 0, sizeof *st);
  if (ucb_seccomp_profile_read (path, &p, err) < 0)
    return -1;
  o.profile = p;
  return ucb_seccomp_build (&o, s, st, err);
}

#ifdef HAVE_SECCOMP

#ifndef SYS_clone3
#define SYS_clone3 435 /* the same number on every architecture */
#endif

static char tmpdir[64];

static void
remove_tmpdir (void)
{
  rmdir (tmpdir);
}

/* Write `text` as a profile file of the scratch directory; the caller frees and unlinks. */
static char *
write_profile (const char *name, const char *text)
{
  char *path;
  FILE *f;

  if (tmpdir[0] == '\0')
    {
      snprintf (tmpdir, sizeof tmpdir, "/tmp/ucb-test-seccomp-XXXXXX");
      if (mkdtemp (tmpdir) == NULL)
        {
          perror ("mkdtemp");
          abort ();
        }
      atexit (remove_tmpdir);
    }
  path = xasprintf ("%s/%s", tmpdir, name);
  f = fopen (path, "w");
  if (f == NULL || fputs (text, f) < 0 || fclose (f) != 0)
    {
      perror (path);
      abort ();
    }
  return path;
}

/* Build a profile given as text, with the capabilities `caps`; 0 or the error's status. */
static int
build_text (const char *text, const int *caps, size_t ncaps, struct ucb_seccomp_stats *st,
            char **msg)
{
  cleanup_free char *path = write_profile ("profile.json", text);
  struct ucb_seccomp *s = NULL;
  ucb_error_t err = NULL;
  int status = 0;

  if (build_path (path, 1, caps, ncaps, &s, st, &err) < 0)
    {
      status = err->status;
      if (msg)
        *msg = xstrdup (err->msg);
      ucb_error_free (&err);
    }
  ucb_seccomp_free (&s);
  unlink (path);
  return status;
}

static bool
kernel_has_seccomp (void)
{
  return prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 || errno != EINVAL;
}

/* "Seccomp_filters:" of /proc/self/status (0 on kernels that do not show it). */
static int
status_field (const char *key)
{
  char buf[4096];
  const char *p;
  ssize_t n;
  int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  p = strstr (buf, key);
  return p ? atoi (p + strlen (key)) : -1;
}

/* What a confined child saw; written whole into a pipe. */
struct probe
{
  int loaded, load_errno;
  uint64_t load_ns;
  int seccomp, filters;
  pid_t ppid;
  int fork_ok;
  int clone3_errno, unshare_errno, kexec_errno;
  int pers_all_rc, pers_all_errno, pers0_rc, pers0_errno;
  int getppid_rc, getppid_errno, getpgid_rc, getpgid_errno;
};

/* Only system calls from here on: the allowlist profiles permit little else. */
static void
probe_docker (struct probe *p)
{
  pid_t pid;
  int ws;

  p->seccomp = status_field ("\nSeccomp:\t");
  p->filters = status_field ("\nSeccomp_filters:\t");
  p->ppid = getppid ();
  pid = fork (); /* clone (SIGCHLD|...): allowed by the masked-flags rule */
  if (pid == 0)
    _exit (0);
  p->fork_ok = pid > 0 && waitpid (pid, &ws, 0) == pid && WIFEXITED (ws) && WEXITSTATUS (ws) == 0;
  errno = 0;
  syscall (SYS_clone3, NULL, 0); /* unfiltered: EINVAL */
  p->clone3_errno = errno;
  errno = 0;
  if (unshare (CLONE_NEWUSER) < 0)
    p->unshare_errno = errno;
  errno = 0;
  /* Flags the kernel refuses (EINVAL): even unfiltered this unloads no kexec image. */
  syscall (SYS_kexec_load, 0UL, 0UL, NULL, 0xdead0000UL);
  p->kexec_errno = errno;
}

static void
probe_allowlist (struct probe *p)
{
  /* Raw calls: glibc's personality() returns -errno without setting errno. */
  errno = 0;
  p->pers_all_rc = (int) syscall (SYS_personality, 0xffffffffUL); /* query: the arg rule */
  p->pers_all_errno = errno;
  errno = 0;
  p->pers0_rc = (int) syscall (SYS_personality, (unsigned long) PER_LINUX);
  p->pers0_errno = errno;
  errno = 0;
  p->getppid_rc = (int) syscall (SYS_getppid);
  p->getppid_errno = errno;
  errno = 0;
  p->getpgid_rc = (int) syscall (SYS_getpgid, 0);
  p->getpgid_errno = errno;
}

/* Fork, load `s` in the child (after no_new_privs, as a container does), run `fn` there and
 * bring back what it saw.  0 when the child reported. */
static int
run_confined (const struct ucb_seccomp *s, void (*fn) (struct probe *), struct probe *p)
{
  int fds[2], ws;
  ssize_t n;
  pid_t pid;

  memset (p, 0, sizeof *p);
  if (pipe2 (fds, O_CLOEXEC) < 0)
    return -1;
  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      ucb_error_t err = NULL;

      close (fds[0]);
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        p->load_errno = errno;
      else if (ucb_seccomp_load (s, &p->load_ns, &err) < 0)
        p->load_errno = err->code;
      else
        {
          p->loaded = 1;
          fn (p);
        }
      n = write (fds[1], p, sizeof *p);
      /* Raw exit_group: a sanitizer's _exit interceptor makes calls the allowlist refuses. */
      syscall (SYS_exit_group, n == (ssize_t) sizeof *p ? 0 : 1);
      _exit (1);
    }
  close (fds[1]);
  n = read (fds[0], p, sizeof *p);
  close (fds[0]);
  if (waitpid (pid, &ws, 0) != pid || !WIFEXITED (ws) || WEXITSTATUS (ws) != 0)
    return -1;
  return n == (ssize_t) sizeof *p ? 0 : -1;
}

/* run_confined, `s` freed; whether the filter was loaded (skipped where the kernel refuses
 * seccomp filters here, a failed check where it failed otherwise). */
static bool
confined_loaded (struct ucb_seccomp **s, void (*fn) (struct probe *), struct probe *p)
{
  tap_check_int (run_confined (*s, fn, p), ==, 0);
  ucb_seccomp_free (s);
  if (!p->loaded && (p->load_errno == EINVAL || p->load_errno == EACCES || p->load_errno == EPERM))
    {
      tap_skip ("seccomp filters refused here");
      return false;
    }
  tap_check (p->loaded);
  return p->loaded;
}

static int
build_docker (const int *caps, size_t ncaps, int opt, struct ucb_seccomp **s,
              struct ucb_seccomp_stats *st)
{
  ucb_error_t err = NULL;

  if (build_path ("docker", opt, caps, ncaps, s, st, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      ucb_error_free (&err);
      return -1;
    }
  return 0;
}

static void
test_docker_build (void)
{
  struct ucb_seccomp *s1 = NULL, *s2 = NULL;
  struct ucb_seccomp_stats st, st2;

  tap_check_int (build_docker (docker_caps, UCB_ARRAY_SIZE (docker_caps), 1, &s1, &st), ==, 0);
  tap_check_int (build_docker (docker_caps, UCB_ARRAY_SIZE (docker_caps), 2, &s2, &st2), ==, 0);
  tap_check (s1 != NULL && s2 != NULL);
  tap_check_str (st.profile, "docker");
  tap_check_str (st.default_action, "SCMP_ACT_ERRNO");
  tap_check_int (st.default_errno, ==, EPERM);
  tap_check_int (st.entries, ==, st.entries_used + st.entries_skipped);
  tap_check_int (st.entries_used, >, 0);
  tap_check_int (st.entries_skipped, >, 0);
  tap_check_int (st.rules, >=, 300);
  tap_check_int (st.names_unknown, >, 0);
  tap_check_int (st.names_unknown, <, st.names);
#if defined(__x86_64__)
  tap_check_int (st.arches, ==, 3); /* x86_64, x86, x32 */
#elif defined(__aarch64__)
  tap_check_int (st.arches, ==, 2); /* aarch64, arm */
#endif
  tap_check_int (st.optimize, ==, 1);
  tap_check_int (st.bpf_insns, >, 0);
  tap_check_int (st2.optimize, ==, 2);
  tap_check_int (st2.rules, ==, st.rules);
  tap_check_int (st2.bpf_insns, >, st.bpf_insns); /* the binary tree costs instructions */
  printf ("# docker: entries %u used %u skipped %u names %u unknown %u rules %u arches %u "
          "bpf_insns opt1 %u opt2 %u\n",
          st.entries, st.entries_used, st.entries_skipped, st.names, st.names_unknown, st.rules,
          st.arches, st.bpf_insns, st2.bpf_insns);
  ucb_seccomp_free (&s1);
  ucb_seccomp_free (&s2);
  ucb_seccomp_free (&s1); /* safe twice */
}

static void
test_docker_sys_admin (void)
{
  int caps[UCB_ARRAY_SIZE (docker_caps) + 1];
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st, admin;

  memcpy (caps, docker_caps, sizeof docker_caps);
  caps[UCB_ARRAY_SIZE (docker_caps)] = CAP_SYS_ADMIN;
  tap_check_int (build_docker (docker_caps, UCB_ARRAY_SIZE (docker_caps), 1, &s, &st), ==, 0);
  ucb_seccomp_free (&s);
  tap_check_int (build_docker (caps, UCB_ARRAY_SIZE (caps), 1, &s, &admin), ==, 0);
  ucb_seccomp_free (&s);
  /* CAP_SYS_ADMIN includes the 26-name block and excludes the clone (masked flags) and clone3
   * (ENOSYS) entries: one entry fewer, many more names and rules. */
  printf ("# docker + CAP_SYS_ADMIN: used %u (was %u) names %u (%u) rules %u (%u)\n",
          admin.entries_used, st.entries_used, admin.names, st.names, admin.rules, st.rules);
  tap_check_int (admin.entries, ==, st.entries);
  tap_check_int (admin.entries_used, ==, st.entries_used - 2 + 1);
  tap_check_int (admin.names, >, st.names);
  tap_check_int (admin.rules, >, st.rules);
}

static void
test_docker_loaded (void)
{
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st;
  struct probe p;
  int before;

  if (!kernel_has_seccomp ())
    {
      tap_skip ("kernel without seccomp");
      return;
    }
  before = status_field ("\nSeccomp_filters:\t");
  tap_check_int (build_docker (docker_caps, UCB_ARRAY_SIZE (docker_caps), 2, &s, &st), ==, 0);
  if (s == NULL)
    return;
  if (!confined_loaded (&s, probe_docker, &p))
    return;
  printf ("# docker opt 2: installed in %.1f us\n", (double) p.load_ns / 1e3);
  tap_check_int (p.seccomp, ==, 2);
  if (before >= 0)
    tap_check_int (p.filters, ==, before + 1);
  tap_check_int (p.ppid, ==, getpid ());
  tap_check (p.fork_ok);
  tap_check_int (p.clone3_errno, ==, ENOSYS); /* errnoRet 38 without CAP_SYS_ADMIN */
  tap_check_int (p.unshare_errno, ==, EPERM); /* excluded without CAP_SYS_ADMIN */
  tap_check_int (p.kexec_errno, ==, EPERM);   /* not in the allowlist: defaultErrnoRet */
}

static const char allowlist[]
    = "{\n"
      "  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
      "  \"defaultErrnoRet\": 13,\n"
      "  \"syscalls\": [\n"
      "    { \"names\": [ \"write\", \"exit_group\", \"exit\", \"rt_sigreturn\", "
      "\"rt_sigprocmask\", \"getpid\", \"gettid\", \"tgkill\", \"mmap\", \"munmap\", \"brk\", "
      "\"futex\", \"close\", \"ucb_no_such_syscall\" ],\n"
      "      \"action\": \"SCMP_ACT_ALLOW\" },\n"
      "    { \"names\": [ \"personality\" ], \"action\": \"SCMP_ACT_ALLOW\",\n"
      "      \"args\": [ { \"index\": 0, \"value\": 4294967295, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
      "    { \"names\": [ \"getppid\" ], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 13 },\n"
      "    { \"name\": \"getpgid\", \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38 }\n"
      "  ]\n"
      "}\n";

static void
test_allowlist (void)
{
  cleanup_free char *path = write_profile ("allow.json", allowlist);
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st;
  ucb_error_t err = NULL;
  struct probe p;

  tap_check_int (build_path (path, 1, NULL, 0, &s, &st, &err), ==, 0);
  unlink (path);
  if (s == NULL)
    {
      printf ("# %s\n", err->msg);
      ucb_error_free (&err);
      return;
    }
  tap_check_str (st.profile, "allow.json");
  tap_check_int (st.default_errno, ==, EACCES);
  tap_check_int (st.entries, ==, 4);
  tap_check_int (st.entries_used, ==, 4);
  tap_check_int (st.names, ==, 17);
  tap_check_int (st.names_unknown, ==, 1);
  /* 13 allowed names, personality, getpgid; getppid repeats the default: no rule */
  tap_check_int (st.rules, ==, 15);
  tap_check_int (st.arches, ==, 1);
  if (!kernel_has_seccomp ())
    {
      ucb_seccomp_free (&s);
      tap_skip ("kernel without seccomp");
      return;
    }
  if (!confined_loaded (&s, probe_allowlist, &p))
    return;
  tap_check_int (p.pers_all_rc, >=, 0);
  tap_check_int (p.pers0_rc, ==, -1);
  tap_check_int (p.pers0_errno, ==, EACCES); /* defaultErrnoRet */
  tap_check_int (p.getppid_rc, ==, -1);
  tap_check_int (p.getppid_errno, ==, EACCES);
  tap_check_int (p.getpgid_rc, ==, -1);
  tap_check_int (p.getpgid_errno, ==, ENOSYS); /* the entry's own errnoRet */
}

static void
test_conditions (void)
{
  /* Docker's semantics: excluded if any excludes condition holds, used if all includes do. */
  static const char text[]
      = "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": "
        "{ \"minKernel\": \"1.0\" } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": "
        "{ \"minKernel\": \"255.0\" } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"excludes\": "
        "{ \"minKernel\": \"255.255\" }, \"includes\": { \"minKernel\": \"\" } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": { \"arches\": "
        "[\"amd64\", \"arm64\", \"ppc64le\", \"s390x\", \"riscv64\", \"x86\", \"arm\"] } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"excludes\": { \"arches\": "
        "[\"amd64\", \"arm64\", \"ppc64le\", \"s390x\", \"riscv64\", \"x86\", \"arm\"] } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": { \"caps\": "
        "[\"CAP_SYS_ADMIN\", \"CAP_KILL\"] } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"excludes\": { \"caps\": "
        "[\"CAP_SYS_ADMIN\"] } },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": { \"caps\": "
        "[\"CAP_NO_SUCH_THING\"] } }\n"
        "] }\n";
  static const int kill_only[] = { CAP_KILL };
  static const int kill_admin[] = { CAP_KILL, CAP_SYS_ADMIN };
  struct ucb_seccomp_stats st;

  tap_check_int (build_text (text, kill_only, 1, &st, NULL), ==, 0);
  tap_check_int (st.entries, ==, 8);
  tap_check_int (st.entries_used, ==, 4); /* 0, 2, 3, 6 */
  tap_check_int (st.entries_skipped, ==, 4);
  tap_check_int (st.rules, ==, 4);
  tap_check_int (build_text (text, kill_admin, 2, &st, NULL), ==, 0);
  tap_check_int (st.entries_used, ==, 4); /* 0, 2, 3, 5 */
  tap_check_int (build_text (text, NULL, 0, &st, NULL), ==, 0);
  tap_check_int (st.entries_used, ==, 4); /* 0, 2, 3, 6 */
}

static void
test_rules (void)
{
  /* Two comparisons of one argument cannot share a rule: one rule each (runc does the same). */
  static const char split[]
      = "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
        " { \"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
        "   { \"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\" },\n"
        "   { \"index\": 0, \"value\": 2, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
        " { \"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
        "   { \"index\": 0, \"value\": 10, \"op\": \"SCMP_CMP_EQ\" },\n"
        "   { \"index\": 1, \"value\": 255, \"valueTwo\": 1, \"op\": \"SCMP_CMP_MASKED_EQ\" } ] "
        "},\n"
        " { \"names\": [\"reboot\"], \"action\": \"SCMP_ACT_KILL_PROCESS\" },\n"
        " { \"names\": [\"acct\"], \"action\": \"SCMP_ACT_KILL\" },\n"
        " { \"names\": [\"syslog\"], \"action\": \"SCMP_ACT_TRAP\" },\n"
        " { \"names\": [\"vhangup\"], \"action\": \"SCMP_ACT_LOG\" },\n"
        " { \"names\": [\"iopl\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 7 },\n"
        " { \"names\": [\"ioperm\"], \"action\": \"SCMP_ACT_KILL_THREAD\" },\n"
        " { \"names\": [\"getppid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1 },\n"
        " { \"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2 }\n"
        "] }\n";
  /* The older format: `architectures` and `name`. */
  static const char old[] = "{ \"defaultAction\": \"SCMP_ACT_ALLOW\",\n"
                            " \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", "
                            "\"SCMP_ARCH_X32\"],\n"
                            " \"syscalls\": [ { \"name\": \"kexec_load\", \"action\": "
                            "\"SCMP_ACT_ERRNO\" },\n"
                            "  { \"name\": \"getppid\", \"action\": \"SCMP_ACT_ALLOW\" } ] }\n";
  struct ucb_seccomp_stats st;
  cleanup_free char *msg = NULL;

  tap_check_int (build_text (split, NULL, 0, &st, &msg), ==, 0);
  if (msg)
    printf ("# %s\n", msg);
  /* 2 + 1 socket, 6 other actions, getpid; getppid's ERRNO(1) is the default ERRNO(EPERM) */
  tap_check_int (st.rules, ==, 2 + 1 + 6 + 1);
  tap_check_int (st.default_errno, ==, EPERM);
  tap_check_int (build_text (old, NULL, 0, &st, NULL), ==, 0);
  tap_check_str (st.default_action, "SCMP_ACT_ALLOW");
  tap_check_int (st.default_errno, ==, 0);
  tap_check_int (st.rules, ==, 1);
  tap_check_int (st.names, ==, 2);
#if defined(__x86_64__)
  tap_check_int (st.arches, ==, 3);
#else
  tap_check_int (st.arches, ==, 4);
#endif
}

/* Profiles that must be refused (a usage error, one line naming the file) and what the message
 * must say, by the part of the profile that is wrong. */
struct bad_profile
{
  const char *text, *where;
};

/* The document and its top-level fields. */
static const struct bad_profile bad_top[] = {
  { "{\n  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n  \"syscalls\": [\n}\n", "line 4 column 1" },
  { "[]", "(top level): expected an object" },
  { "{}", "defaultAction: missing" },
  { "{ \"defaultAction\": 1 }", "defaultAction: expected a string" },
  { "{ \"defaultAction\": \"SCMP_ACT_DENY\" }", "defaultAction: unknown action" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": \"1\" }",
    "defaultErrnoRet: expected an integer" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": -1 }",
    "defaultErrnoRet: expected an integer from 0 to 4095" },
  { "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": {} }", "syscalls: expected an array" },
};

/* Syscalls entries: type, action, errnoRet, names. */
static const struct bad_profile bad_entries[] = {
  { "{ \"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [ 3 ] }",
    "syscalls[0]: expected an object" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\" }, { \"names\": [\"write\"], \"action\": "
    "\"SCMP_ACT_PERMIT\" } ] }",
    "syscalls[1].action: unknown action `SCMP_ACT_PERMIT`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_NOTIFY\" } ] }",
    "syscalls[0].action: SCMP_ACT_NOTIFY is not supported" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"] } ] }",
    "syscalls[0].action: missing" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 5000 } ] }",
    "syscalls[0].errnoRet: expected an integer from 0 to 4095" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": \"read\", "
    "\"action\": \"SCMP_ACT_ALLOW\" } ] }",
    "syscalls[0].names: expected an array" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\", 3], "
    "\"action\": \"SCMP_ACT_ALLOW\" } ] }",
    "syscalls[0].names[1]: expected a string" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"name\": \"write\", \"action\": \"SCMP_ACT_ALLOW\" } ] }",
    "syscalls[0]: both `name` and `names`" },
};

/* An entry's args. */
static const struct bad_profile bad_args[] = {
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [\n"
    " { \"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\" },\n"
    " { \"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\" },\n"
    " { \"names\": [\"close\"], \"action\": \"SCMP_ACT_ALLOW\" },\n"
    " { \"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [\n"
    "   { \"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_LIKE\" } ] } ] }",
    "syscalls[3].args[0].op: unknown operator `SCMP_CMP_LIKE`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"socket\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": \"0\", \"value\": 1, "
    "\"op\": \"SCMP_CMP_EQ\" } ] } ] }",
    "syscalls[0].args[0].index: expected an integer from 0 to 5" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"socket\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 6, \"value\": 1, "
    "\"op\": \"SCMP_CMP_EQ\" } ] } ] }",
    "syscalls[0].args[0].index: expected an integer from 0 to 5" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"socket\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"op\": \"SCMP_CMP_EQ\" } "
    "] } ] }",
    "syscalls[0].args[0]: missing value" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"socket\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"args\": { } } ] }",
    "syscalls[0].args: expected an array" },
};

/* Architectures and archMap. */
static const struct bad_profile bad_arches[] = {
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [ { \"architecture\": "
    "\"SCMP_ARCH_VAX\", \"subArchitectures\": null } ] }",
    "archMap[0].architecture: unknown architecture `SCMP_ARCH_VAX`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [ { \"architecture\": "
    "\"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_X86\", \"x32\"] } ] }",
    "archMap[0].subArchitectures[1]: unknown architecture `x32`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86\", 64] }",
    "architectures[1]: expected a string" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_FOO\"] }",
    "architectures[0]: unknown architecture `SCMP_ARCH_FOO`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86\"], "
    "\"archMap\": [ { \"architecture\": \"SCMP_ARCH_X86_64\" } ] }",
    "archMap: both `architectures` and `archMap`" },
};

/* Includes/excludes conditions. */
static const struct bad_profile bad_conditions[] = {
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"arches\": [\"x86_64\"] } } ] }",
    "syscalls[0].includes.arches[0]: unknown architecture `x86_64`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"excludes\": { \"minKernel\": \"4\" } } ] }",
    "syscalls[0].excludes.minKernel: invalid kernel version `4`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"minKernel\": \"4.8.1\" } } ] }",
    "syscalls[0].includes.minKernel: invalid kernel version `4.8.1`" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": [] } ] }",
    "syscalls[0].includes: expected an object" },
  { "{ \"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [ { \"names\": [\"read\"], "
    "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"caps\": \"CAP_SYS_ADMIN\" } } ] }",
    "syscalls[0].includes.caps: expected an array" },
};

static void
check_bad_profiles (const char *group, const struct bad_profile *cases, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *msg = NULL;
      struct ucb_seccomp_stats st;
      int status = build_text (cases[i].text, NULL, 0, &st, &msg);

      tap_check_int (status, ==, UCB_EXIT_USAGE);
      if (msg == NULL)
        {
          printf ("# %s case %zu built\n", group, i);
          continue;
        }
      if (strstr (msg, cases[i].where) == NULL || strstr (msg, "/profile.json`") == NULL
          || strchr (msg, '\n') != NULL)
        {
          printf ("# %s case %zu: \"%s\" lacks \"%s\"\n", group, i, msg, cases[i].where);
          tap_failed_checks++;
        }
    }
}

static void
test_bad_profiles (void)
{
  check_bad_profiles ("top", bad_top, UCB_ARRAY_SIZE (bad_top));
  check_bad_profiles ("entries", bad_entries, UCB_ARRAY_SIZE (bad_entries));
  check_bad_profiles ("args", bad_args, UCB_ARRAY_SIZE (bad_args));
  check_bad_profiles ("arches", bad_arches, UCB_ARRAY_SIZE (bad_arches));
  check_bad_profiles ("conditions", bad_conditions, UCB_ARRAY_SIZE (bad_conditions));
}

static void
test_bad_files (void)
{
  struct ucb_seccomp_opts o = { .optimize = 1 };
  struct ucb_seccomp *s = NULL;
  ucb_error_t err = NULL;
  cleanup_free char *dummy = write_profile ("dummy.json", "{}");

  tap_check_int (build_path ("/nonexistent/ucb/profile.json", 1, NULL, 0, &s, NULL, &err), <, 0);
  tap_check (s == NULL);
  tap_check (err && err->status == UCB_EXIT_USAGE);
  tap_check (err && strstr (err->msg, "`/nonexistent/ucb/profile.json`: No such file") != NULL);
  ucb_error_free (&err);

  tap_check_int (build_path (tmpdir, 1, NULL, 0, &s, NULL, &err), <, 0); /* a directory */
  tap_check (err && err->status == UCB_EXIT_USAGE && strstr (err->msg, "is a directory"));
  ucb_error_free (&err);
  unlink (dummy);

  tap_check_int (build_path ("docker", 3, NULL, 0, &s, NULL, &err), <, 0);
  tap_check (err && err->status == UCB_EXIT_USAGE && strstr (err->msg, "expected 1 or 2"));
  ucb_error_free (&err);

  /* The caller reads the profile: without one, ucbench is wrong, not the user. */
  tap_check_int (ucb_seccomp_build (&o, &s, NULL, &err), <, 0);
  tap_check (s == NULL);
  tap_check (err && err->status == UCB_EXIT_FAILURE
             && strcmp (err->msg, "internal: no seccomp profile given") == 0);
  ucb_error_free (&err);
}

/* The CLI reads the JSON into the C form, as written (which apply is the build's). */
static void
test_read_form (void)
{
  cleanup_free char *path = write_profile (
      "form.json",
      "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 38, \"archMap\": "
      "[{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_X86\"]}],"
      " \"syscalls\": [{\"name\": \"acct\", \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 9,"
      " \"args\": [{\"index\": 1, \"value\": 3, \"valueTwo\": 2, \"op\": \"SCMP_CMP_MASKED_EQ\"}],"
      " \"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"], \"arches\": [\"amd64\"], \"minKernel\": "
      "\"4.8\"}}]}");
  __attribute__ ((cleanup (ucb_seccomp_profile_free))) struct ucb_seccomp_profile *p = NULL;
  const struct ucb_seccomp_entry *e;
  ucb_error_t err = NULL;

  tap_require (ucb_seccomp_profile_read (path, &p, &err) == 0);
  unlink (path);
  tap_check_str (p->file, path);
  tap_check (p->def.act == UCB_SCMP_ERRNO && p->def.e == 38);
  tap_check_int (p->nmap, ==, 1);
  tap_check_str (ucb_seccomp_arches[p->map[0].arch], "SCMP_ARCH_X86_64");
  tap_check (p->map[0].nsubs == 1
             && strcmp (ucb_seccomp_arches[p->map[0].subs[0]], "SCMP_ARCH_X86") == 0);
  tap_check_int (p->narches, ==, 0);
  tap_require (p->ncalls == 1);
  e = &p->calls[0];
  tap_check (e->single && e->nnames == 1 && strcmp (e->names[0], "acct") == 0);
  tap_check (e->action.act == UCB_SCMP_TRACE && e->action.e == 9);
  tap_require (e->nargs == 1);
  tap_check (e->args[0].index == 1 && e->args[0].value == 3 && e->args[0].two == 2);
  tap_check_str (ucb_seccomp_cmps[e->args[0].op], "SCMP_CMP_MASKED_EQ");
  tap_check (e->inc.ncaps == 1 && strcmp (e->inc.caps[0], "CAP_SYS_ADMIN") == 0);
  tap_check (e->inc.narches == 1
             && strcmp (ucb_seccomp_arches[e->inc.arches[0]], "SCMP_ARCH_X86_64") == 0);
  tap_check (e->inc.kmaj == 4 && e->inc.kmin == 8);
  tap_check (e->exc.ncaps == 0 && e->exc.narches == 0 && e->exc.kmaj == 0);
}

/* The host compiles the C form alone: no JSON, no reader handed down. */
static void
test_build_form (void)
{
  char *names[] = { (char *) "acct", (char *) "ucb_no_such_syscall" };
  struct ucb_seccomp_arg eq7 = { .index = 0, .op = 4 /* SCMP_CMP_EQ */, .value = 7 };
  struct ucb_seccomp_entry calls[] = {
    { .names = names, .nnames = 2, .action = { UCB_SCMP_ERRNO, 1 }, .args = &eq7, .nargs = 1 },
    /* excluded on every kernel ucbench runs on */
    { .names = names,
      .nnames = 1,
      .action = { UCB_SCMP_KILL_PROCESS, 0 },
      .exc = { .kmaj = 2, .kmin = 6 } },
  };
  struct ucb_seccomp_profile p = { .file = (char *) "/c/form", .calls = calls, .ncalls = 2 };
  struct ucb_seccomp_opts o = { .profile = &p, .optimize = 1 };
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st;
  ucb_error_t err = NULL;

  tap_check_int (ucb_seccomp_build (&o, &s, &st, &err), ==, 0);
  tap_check (s != NULL);
  tap_check_str (st.profile, "form");
  tap_check_str (st.default_action, "SCMP_ACT_ALLOW");
  tap_check (st.entries == 2 && st.entries_used == 1 && st.entries_skipped == 1);
  tap_check (st.names == 2 && st.names_unknown == 1 && st.rules == 1);
  tap_check_int (st.bpf_insns, >, 0);
  ucb_error_free (&err);
  ucb_seccomp_free (&s);
}

static void
test_stats_json (void)
{
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st;
  json_t *j;

  tap_check_int (build_docker (docker_caps, UCB_ARRAY_SIZE (docker_caps), 2, &s, &st), ==, 0);
  ucb_seccomp_free (&s);
  j = ucb_emit_seccomp_stats (&st);
  tap_check_int (json_object_size (j), ==, 12);
  tap_check_str (json_string_value (json_object_get (j, "profile")), "docker");
  tap_check_str (json_string_value (json_object_get (j, "default_action")), "SCMP_ACT_ERRNO");
  tap_check_int (json_integer_value (json_object_get (j, "default_errno")), ==, 1);
  tap_check_int (json_integer_value (json_object_get (j, "entries")), ==, st.entries);
  tap_check_int (json_integer_value (json_object_get (j, "entries_used")), ==, st.entries_used);
  tap_check_int (json_integer_value (json_object_get (j, "entries_skipped")), ==,
                 st.entries_skipped);
  tap_check_int (json_integer_value (json_object_get (j, "names")), ==, st.names);
  tap_check_int (json_integer_value (json_object_get (j, "names_unknown")), ==, st.names_unknown);
  tap_check_int (json_integer_value (json_object_get (j, "rules")), ==, st.rules);
  tap_check_int (json_integer_value (json_object_get (j, "arches")), ==, st.arches);
  tap_check_int (json_integer_value (json_object_get (j, "optimize")), ==, 2);
  tap_check_int (json_integer_value (json_object_get (j, "bpf_insns")), ==, st.bpf_insns);
  json_decref (j);
}

static const struct tap_test tests[] = {
  { "docker profile, Docker's capabilities: rules, unknown names, arches, BPF size",
    test_docker_build },
  { "docker profile with CAP_SYS_ADMIN uses more entries", test_docker_sys_admin },
  { "docker profile loaded in a child: clone allowed, clone3 ENOSYS, unshare/kexec EPERM",
    test_docker_loaded },
  { "allowlist with an arg rule, an unknown name and defaultErrnoRet", test_allowlist },
  { "includes/excludes: caps, arches, minKernel", test_conditions },
  { "rules: split same-index args, every action, old format", test_rules },
  { "bad profiles: usage error naming file and JSON location", test_bad_profiles },
  { "bad files and options: usage errors; no profile: an internal error", test_bad_files },
  { "the C form: read from JSON as written", test_read_form },
  { "the C form: built without JSON", test_build_form },
  { "stats as JSON: every field", test_stats_json },
};

#else /* !HAVE_SECCOMP */

static void
test_without_libseccomp (void)
{
  struct ucb_seccomp *s = NULL;
  struct ucb_seccomp_stats st;
  ucb_error_t err = NULL;
  uint64_t ns;
  json_t *j;

  tap_check_int (build_path ("docker", 1, docker_caps, UCB_ARRAY_SIZE (docker_caps), &s, &st, &err),
                 <, 0);
  tap_check (s == NULL);
  tap_check (err
             && strstr (err->msg, "seccomp profile `docker`: built without libseccomp: reconfigure "
                                  "with libseccomp-dev installed"));
  ucb_error_free (&err);
  tap_check_int (ucb_seccomp_load (s, &ns, &err), <, 0);
  ucb_error_free (&err);
  ucb_seccomp_free (&s);
  j = ucb_emit_seccomp_stats (&st);
  tap_check_int (json_object_size (j), ==, 12);
  json_decref (j);
}

static const struct tap_test tests[] = {
  { "built without libseccomp: a clear error", test_without_libseccomp },
};

#endif /* HAVE_SECCOMP */

TAP_MAIN (tests)
