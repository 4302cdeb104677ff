/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-overhead.c - ucbench's harness cost: a workload run by ucbench (1 container, owner
 * root, pinned) against a bare loop of the same op (the workload's own loop function, called
 * in a plain forked child with no harness around it), and for `signal` optionally against
 * will-it-scale's signal1_processes, interleaved in one run on the same CPU.  Prints
 * per-round rates, the median ratio and its spread.  A program that prints numbers, not a
 * test.
 *
 *   bench-overhead [--ucbench PATH] [--workload NAME] [--depth 0|1] [--wis PATH]
 *                  [--rounds N] [--duration SEC] [--cpu N]
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/stats.h"
#include "core/util.h"
#include "engine/workload.h"

static void
pin (int cpu)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  if (sched_setaffinity (0, sizeof set, &set) < 0)
    {
      perror ("sched_setaffinity");
      exit (1);
    }
}

static void
sleep_s (double s)
{
  struct timespec ts = { (time_t) s, (long) ((s - (double) (time_t) s) * 1e9) };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* The bare loop: will-it-scale's signal1 body, counter in a shared page. */
/* depth 1: a user namespace (and IPC namespace) of our own, uid 0 inside mapped to ours, as
 * ucbench's containers have; no harness otherwise. */
static void
enter_userns (void)
{
  char map[64];
  unsigned uid = (unsigned) getuid (); /* before unshare: unmapped, it would read 65534 */
  int fd;

  if (unshare (CLONE_NEWUSER | CLONE_NEWIPC) < 0)
    {
      perror ("unshare");
      _exit (1);
    }
  fd = open ("/proc/self/setgroups", O_WRONLY);
  if (fd >= 0)
    {
      if (write (fd, "deny", 4) < 0)
        _exit (1);
      close (fd);
    }
  snprintf (map, sizeof map, "0 %u 1\n", uid);
  for (int i = 0; i < 2; i++)
    {
      fd = open (i ? "/proc/self/uid_map" : "/proc/self/gid_map", O_WRONLY);
      if (fd < 0 || write (fd, map, strlen (map)) < 0)
        {
          perror ("bench-overhead: id map");
          _exit (1);
        }
      close (fd);
    }
}

/* Returns ops/s; `*ns_per_op` gets the child's CPU time per op. */
static double
bare_rate (const struct ucb_workload *w, unsigned depth, int cpu, double warmup, double duration,
           double *ns_per_op)
{
  double c0, c1;
  struct ucb_slot *slot
      = mmap (NULL, sizeof *slot, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  uint64_t a, b, t0, t1;
  pid_t pid;

  if (slot == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  pid = fork ();
  if (pid == 0)
    {
      struct ucb_wctx ctx = { .slot = slot, .tasks = 1, .runid = (unsigned long) getpid () };
      ucb_error_t err = NULL;

      prctl (PR_SET_PDEATHSIG, SIGKILL);
      pin (cpu);
      if (depth)
        enter_userns ();
      if (w->setup && w->setup (&ctx, &err) < 0)
        {
          fprintf (stderr, "bench-overhead: %s setup: %s\n", w->name, err->msg);
          _exit (1);
        }
      /* The same batches as ucbench, and the same CPU clock: the calling thread's own. */
      for (;;)
        {
          struct timespec ts;
          w->loop (&ctx, w->batch ? w->batch : 1000);
          clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
          __atomic_store_n (&slot->cpu_ns,
                            (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec,
                            __ATOMIC_RELAXED);
        }
    }
  sleep_s (warmup);
  t0 = ucb_now_ns ();
  a = __atomic_load_n (&slot->ops, __ATOMIC_RELAXED);
  c0 = (double) __atomic_load_n (&slot->cpu_ns, __ATOMIC_RELAXED);
  sleep_s (duration);
  t1 = ucb_now_ns ();
  b = __atomic_load_n (&slot->ops, __ATOMIC_RELAXED);
  c1 = (double) __atomic_load_n (&slot->cpu_ns, __ATOMIC_RELAXED);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  if (slot->fails)
    fprintf (stderr, "bench-overhead: warning: %llu failed ops in the bare loop\n",
             (unsigned long long) slot->fails);
  munmap (slot, sizeof *slot);
  *ns_per_op = (c1 - c0) / (double) (b - a);
  return (double) (b - a) / ((double) (t1 - t0) / 1e9);
}

/* Run a command, capture stdout. */
static char *
capture (char *const argv[])
{
  int p[2];
  pid_t pid;
  char *buf = NULL;
  size_t len = 0;
  ssize_t n;
  char tmp[4096];
  int status;

  if (pipe (p) < 0)
    return NULL;
  pid = fork ();
  if (pid == 0)
    {
      dup2 (p[1], 1);
      close (p[0]);
      close (p[1]);
      execv (argv[0], argv);
      _exit (127);
    }
  close (p[1]);
  while ((n = read (p[0], tmp, sizeof tmp)) > 0)
    {
      buf = xrealloc (buf, len + (size_t) n + 1);
      memcpy (buf + len, tmp, (size_t) n);
      len += (size_t) n;
      buf[len] = '\0';
    }
  close (p[0]);
  waitpid (pid, &status, 0);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      free (buf);
      return NULL;
    }
  return buf;
}

static double
ucbench_rate (const char *ucbench, const char *workload, unsigned depth, int cpu, double warmup,
              double duration, double *ns_per_op)
{
  char cpus[16], dur[32], wu[32], dep[16];
  char *argv[] = { (char *) ucbench,        (char *) "run",
                   (char *) "--workload",   (char *) workload,
                   (char *) "--containers", (char *) "1",
                   (char *) "--depth",      dep,
                   (char *) "--owner",      (char *) "root",
                   (char *) "--pin",        cpus,
                   (char *) "--duration",   dur,
                   (char *) "--warmup",     wu,
                   (char *) "--interval",   (char *) "0.5",
                   (char *) "--format",     (char *) "json",
                   (char *) "--quiet",      NULL };
  char *out;
  json_t *doc, *pc;
  json_error_t jerr;
  double r;

  snprintf (cpus, sizeof cpus, "%d", cpu);
  snprintf (dep, sizeof dep, "%u", depth);
  snprintf (dur, sizeof dur, "%g", duration);
  snprintf (wu, sizeof wu, "%g", warmup);
  out = capture (argv);
  if (out == NULL)
    {
      fprintf (stderr, "bench-overhead: `%s run` failed\n", ucbench);
      exit (1);
    }
  doc = json_loads (out, 0, &jerr);
  free (out);
  pc = json_array_get (
      json_object_get (json_array_get (json_object_get (doc, "results"), 0), "per_container"), 0);
  r = json_number_value (json_object_get (pc, "rate_ops_per_s"));
  *ns_per_op = json_number_value (json_object_get (pc, "cpu_ns_per_op"));
  json_decref (doc);
  return r;
}

/* will-it-scale: `signal1_processes -t 1 -s N -n` under taskset; parse `average:`. */
static double
wis_rate (const char *wis, int cpu, double duration)
{
  char cpus[16], secs[16];
  char *argv[] = { (char *) "/usr/bin/taskset",
                   (char *) "-c",
                   cpus,
                   (char *) wis,
                   (char *) "-t",
                   (char *) "1",
                   (char *) "-s",
                   secs,
                   (char *) "-n",
                   NULL };
  char *out, *avg;
  double r;

  snprintf (cpus, sizeof cpus, "%d", cpu);
  snprintf (secs, sizeof secs, "%d", (int) (duration + 0.5));
  out = capture (argv);
  if (out == NULL || (avg = strstr (out, "average:")) == NULL)
    {
      fprintf (stderr, "bench-overhead: `%s` failed\n", wis);
      exit (1);
    }
  r = strtod (avg + 8, NULL);
  free (out);
  return r;
}

static void
summary (const char *name, const double *v, size_t n)
{
  struct ucb_stats s;
  ucb_stats_compute (v, n, &s);
  printf ("%-22s median %10.4g  min %10.4g  max %10.4g  stddev %.3g\n", name, s.median, s.min,
          s.max, s.stddev);
}

struct bench_opts
{
  const char *ucbench, *wis, *wname;
  unsigned depth;
  int rounds, cpu;
  double duration, warmup;
};

/* Per-round figures, one array each (the order of the summary lines). */
enum
{
  BARE,
  UCB,
  RATIO,
  BARE_NS,
  UCB_NS,
  CRATIO,
  WIS,
  WRATIO,
  NSERIES
};
static const char *const series_names[NSERIES]
    = { "bare loop ops/s",   "ucbench ops/s",          "ratio ucbench/bare",  "bare CPU ns/op",
        "ucbench CPU ns/op", "CPU ratio bare/ucbench", "will-it-scale ops/s", "ratio ucbench/wis" };

static int
parse_args (int argc, char **argv, struct bench_opts *o)
{
  static const struct option longopts[] = {
    { "ucbench", required_argument, NULL, 'u' },  { "wis", required_argument, NULL, 'w' },
    { "workload", required_argument, NULL, 'W' }, { "depth", required_argument, NULL, 'D' },
    { "rounds", required_argument, NULL, 'r' },   { "duration", required_argument, NULL, 'd' },
    { "cpu", required_argument, NULL, 'c' },      { NULL, 0, NULL, 0 }
  };
  int c;

  *o = (struct bench_opts){
    .ucbench = "./ucbench", .wname = "signal", .rounds = 5, .cpu = 1, .duration = 5, .warmup = 1
  };
  while ((c = getopt_long (argc, argv, "", longopts, NULL)) != -1)
    switch (c)
      {
      case 'u':
        o->ucbench = optarg;
        break;
      case 'w':
        o->wis = optarg;
        break;
      case 'r':
        o->rounds = atoi (optarg);
        break;
      case 'W':
        o->wname = optarg;
        break;
      case 'D':
        o->depth = (unsigned) atoi (optarg);
        break;
      case 'd':
        o->duration = atof (optarg);
        break;
      case 'c':
        o->cpu = atoi (optarg);
        break;
      default:
        fprintf (stderr, "usage: bench-overhead [--ucbench PATH] [--workload NAME] [--depth 0|1] "
                         "[--wis PATH] [--rounds N] [--duration SEC] [--cpu N]\n");
        return -1;
      }
  return 0;
}

/* Round i: the bare loop and ucbench side by side, in alternating order so that a drift in
 * machine load does not favour one side; will-it-scale after them when given. */
static void
run_round (const struct bench_opts *o, const struct ucb_workload *w, int i, double **v)
{
  if (i % 2 == 0)
    {
      v[BARE][i] = bare_rate (w, o->depth, o->cpu, o->warmup, o->duration, &v[BARE_NS][i]);
      v[UCB][i] = ucbench_rate (o->ucbench, o->wname, o->depth, o->cpu, o->warmup, o->duration,
                                &v[UCB_NS][i]);
    }
  else
    {
      v[UCB][i] = ucbench_rate (o->ucbench, o->wname, o->depth, o->cpu, o->warmup, o->duration,
                                &v[UCB_NS][i]);
      v[BARE][i] = bare_rate (w, o->depth, o->cpu, o->warmup, o->duration, &v[BARE_NS][i]);
    }
  v[RATIO][i] = v[UCB][i] / v[BARE][i];
  v[CRATIO][i] = v[BARE_NS][i] / v[UCB_NS][i]; /* >1 = ucbench spends less CPU per op */
  printf ("%7d %11.0f %14.0f %6.4f %15.1f %18.1f %10.4f", i + 1, v[BARE][i], v[UCB][i], v[RATIO][i],
          v[BARE_NS][i], v[UCB_NS][i], v[CRATIO][i]);
  if (o->wis)
    {
      v[WIS][i] = wis_rate (o->wis, o->cpu, o->duration);
      v[WRATIO][i] = v[UCB][i] / v[WIS][i];
      printf (" %10.0f %12.4f", v[WIS][i], v[WRATIO][i]);
    }
  printf ("\n");
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  struct bench_opts o;
  const struct ucb_workload *w;
  double *v[NSERIES];
  size_t nseries;

  if (parse_args (argc, argv, &o) < 0)
    return 2;
  w = ucb_workload_find (o.wname);
  if (o.rounds < 1 || o.duration <= 0 || o.cpu < 0 || o.depth > 1 || w == NULL || w->loop == NULL)
    {
      fprintf (stderr, "bench-overhead: bad --rounds/--duration/--cpu/--depth/--workload\n");
      return 2;
    }
  nseries = o.wis ? NSERIES : WIS;
  for (size_t k = 0; k < NSERIES; k++)
    v[k] = xcalloc ((size_t) o.rounds, sizeof *v[k]);
  printf ("# %s, 1 task on CPU %d, depth %u, %g s warm-up + %g s measured, %d interleaved rounds\n",
          o.wname, o.cpu, o.depth, o.warmup, o.duration, o.rounds);
  printf (
      "# round  bare_ops_s  ucbench_ops_s  ratio  bare_cpu_ns/op  ucbench_cpu_ns/op  cpu_ratio%s\n",
      o.wis ? "  wis_ops_s  ucbench/wis" : "");
  for (int i = 0; i < o.rounds; i++)
    run_round (&o, w, i, v);
  for (size_t k = 0; k < nseries; k++)
    summary (series_names[k], v[k], (size_t) o.rounds);
  for (size_t k = 0; k < NSERIES; k++)
    free (v[k]);
  return 0;
}
