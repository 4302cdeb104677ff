/* report.c - the result document (jansson) and the text table drawn from it.
 *
 * Every number a user sees is derived here from the raw readings, once; the text table reads
 * the document, so the two can never disagree. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json-util.h"
#include "report.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

static json_t *
stats_json (const struct ucb_stats *s)
{
  json_t *o = ucb_json_obj ();
  ucb_json_set (o, "mean", ucb_json_real (s->mean));
  ucb_json_set (o, "median", ucb_json_real (s->median));
  ucb_json_set (o, "stddev", ucb_json_real (s->stddev));
  ucb_json_set (o, "min", ucb_json_real (s->min));
  ucb_json_set (o, "max", ucb_json_real (s->max));
  ucb_json_set (o, "cv", ucb_json_real (s->cv));
  return o;
}

static json_t *
cpus_json (const int *cpus, size_t n)
{
  json_t *a = ucb_json_arr ();
  for (size_t i = 0; i < n; i++)
    ucb_json_push (a, ucb_json_int (cpus[i]));
  return a;
}

static json_t *
container_json (const struct ucb_point_result *r, const struct ucb_placement *pl, size_t i,
                double *rate_out, double *cpu_ns_out, uint64_t *fails_out)
{
  const struct ucb_samples *s = &r->samples;
  const struct ucb_container_result *c = &r->c[i];
  size_t k_last = s->nreadings - 1;
  const struct ucb_reading *first = ucb_reading_at (s, 0, i);
  const struct ucb_reading *last = ucb_reading_at (s, k_last, i);
  cleanup_free double *rates = xcalloc (s->nreadings, sizeof *rates);
  json_t *o = ucb_json_obj (), *samples = ucb_json_arr ();
  struct ucb_stats st;
  double span_s = (double) (last->t_ns - first->t_ns) / 1e9;
  uint64_t ops = last->ops - first->ops;
  double rate = span_s > 0 ? (double) ops / span_s : NAN;
  double cpu_ns_per_op = NAN, cpu_util = NAN;

  for (size_t k = 1; k < s->nreadings; k++)
    {
      const struct ucb_reading *a = ucb_reading_at (s, k - 1, i);
      const struct ucb_reading *b = ucb_reading_at (s, k, i);
      double dt = (double) (b->t_ns - a->t_ns) / 1e9;
      json_t *smp = ucb_json_obj ();

      rates[k - 1] = dt > 0 ? (double) (b->ops - a->ops) / dt : NAN;
      ucb_json_set (smp, "t", ucb_json_real ((double) (b->t_ns - s->start_ns) / 1e9));
      ucb_json_set (smp, "dt", ucb_json_real (dt));
      ucb_json_set (smp, "ops", ucb_json_int ((long long) (b->ops - a->ops)));
      ucb_json_set (smp, "ops_per_s", ucb_json_real (rates[k - 1]));
      ucb_json_set (smp, "failed_ops", ucb_json_int ((long long) (b->fails - a->fails)));
      ucb_json_push (samples, smp);
    }
  ucb_stats_compute (rates, s->nreadings - 1, &st);
  if (last->cpu_ns > 0 && ops > 0)
    cpu_ns_per_op = (double) (last->cpu_ns - first->cpu_ns) / (double) ops;
  if (last->cpu_ns > 0 && span_s > 0)
    cpu_util = (double) (last->cpu_ns - first->cpu_ns) / 1e9 / span_s;

  ucb_json_set (o, "index", ucb_json_int (c->index));
  ucb_json_set (o, "owner_uid", ucb_json_int (c->owner_uid));
  ucb_json_set (o, "depth", ucb_json_int (c->depth));
  if (c->cpu >= 0)
    ucb_json_set (o, "cpus", cpus_json (&c->cpu, 1));
  else
    ucb_json_set (o, "cpus", cpus_json (pl->allowed, pl->nallowed));
  ucb_json_set (o, "pinned", json_boolean (c->cpu >= 0));
  ucb_json_set (o, "task_pid", ucb_json_int (c->task_pid));
  ucb_json_set (o, "task_uid",
                c->task_uid == (uid_t) -1 ? json_null () : ucb_json_int (c->task_uid));
  ucb_json_set (o, "userns_inode",
                c->userns_ino ? ucb_json_int ((long long) c->userns_ino) : json_null ());
  ucb_json_set (o, "ops", ucb_json_int ((long long) ops));
  ucb_json_set (o, "rate_ops_per_s", ucb_json_real (rate));
  ucb_json_set (o, "ops_per_s", stats_json (&st));
  ucb_json_set (o, "cpu_ns_per_op", ucb_json_real (cpu_ns_per_op));
  ucb_json_set (o, "cpu_utilization", ucb_json_real (cpu_util));
  ucb_json_set (o, "failed_ops", ucb_json_int ((long long) (last->fails - first->fails)));
  ucb_json_set (o, "last_errno",
                c->last_errno ? ucb_json_str (strerrorname_np (c->last_errno)) : json_null ());
  ucb_json_set (o, "samples", samples);
  *rate_out = rate;
  *cpu_ns_out = cpu_ns_per_op;
  *fails_out = last->fails - first->fails;
  return o;
}

/* The sweep-point keys every results[] entry has, measured or not. */
static void
point_header (json_t *o, const struct ucb_point *pt, const char *status)
{
  cleanup_free char *owner = ucb_owner_mode_name (&pt->owner);

  ucb_json_set (o, "workload", ucb_json_str (pt->workload->name));
  ucb_json_set (o, "counter", ucb_json_str (pt->workload->counter));
  ucb_json_set (o, "containers", ucb_json_int (pt->containers));
  ucb_json_set (o, "owner", ucb_json_str (owner));
  ucb_json_set (o, "depth", ucb_json_int (pt->depth));
  ucb_json_set (o, "tasks", ucb_json_int (pt->tasks));
  ucb_json_set (o, "mode", ucb_json_str ("process"));
  ucb_json_set (o, "repeat", ucb_json_int (pt->repeat));
  ucb_json_set (o, "status", ucb_json_str (status));
}

json_t *
ucb_report_skipped (const struct ucb_point *pt, const char *reason)
{
  json_t *o = ucb_json_obj (), *sum = ucb_json_obj ();
  static const char *const nulls[] = {
    "total_ops_per_s", "per_container_ops", "scalability", "fairness", "cv", "cpu_ns_per_op"
  };

  point_header (o, pt, "skipped");
  ucb_json_set (o, "reason", ucb_json_str (reason));
  ucb_json_set (o, "per_container", ucb_json_arr ());
  for (size_t i = 0; i < UCB_ARRAY_SIZE (nulls); i++)
    ucb_json_set (sum, nulls[i], NULL);
  ucb_json_set (sum, "failed_ops", ucb_json_int (0));
  ucb_json_set (o, "summary", sum);
  return o;
}

json_t *
ucb_report_point (const struct ucb_point_result *r, const struct ucb_placement *pl)
{
  size_t n = r->pt.containers;
  cleanup_free double *rates = xcalloc (n, sizeof *rates);
  cleanup_free double *cpu = xcalloc (n, sizeof *cpu);
  json_t *o = ucb_json_obj (), *pc = ucb_json_arr (), *sum = ucb_json_obj ();
  struct ucb_stats across;
  double total = 0;
  uint64_t fails = 0;
  size_t ncpu = 0;

  point_header (o, &r->pt, "ok");
  ucb_json_set (o, "setup_s", ucb_json_real (r->setup_s));
  if (r->samples.nreadings > 0)
    ucb_json_set (
        o, "measured_s",
        ucb_json_real ((double) (ucb_reading_at (&r->samples, r->samples.nreadings - 1, 0)->t_ns
                                 - ucb_reading_at (&r->samples, 0, 0)->t_ns)
                       / 1e9));
  for (size_t i = 0; i < n && r->samples.nreadings > 1; i++)
    {
      double c_ns;
      uint64_t f;
      ucb_json_push (pc, container_json (r, pl, i, &rates[i], &c_ns, &f));
      total += isfinite (rates[i]) ? rates[i] : 0;
      fails += f;
      if (isfinite (c_ns))
        cpu[ncpu++] = c_ns;
    }
  ucb_json_set (o, "per_container", pc);
  ucb_stats_compute (rates, n, &across);
  ucb_json_set (sum, "total_ops_per_s", ucb_json_real (total));
  ucb_json_set (sum, "per_container_ops", ucb_json_real (total / (double) n));
  ucb_json_set (sum, "scalability", json_null ());
  ucb_json_set (sum, "fairness", ucb_json_real (ucb_jain_index (rates, n)));
  ucb_json_set (sum, "cv", ucb_json_real (across.cv));
  ucb_json_set (sum, "min_container_ops", ucb_json_real (across.min));
  ucb_json_set (sum, "max_container_ops", ucb_json_real (across.max));
  ucb_json_set (sum, "cpu_ns_per_op", ucb_json_real (ucb_median (cpu, ncpu)));
  ucb_json_set (sum, "failed_ops", ucb_json_int ((long long) fails));
  ucb_json_set (sum, "idle_pct", ucb_json_real (r->idle_pct));
  ucb_json_set (sum, "steal_pct", ucb_json_real (r->steal_pct));
  ucb_json_set (o, "summary", sum);
  return o;
}

static bool
same_series (json_t *a, json_t *b)
{
  static const char *const keys[] = { "workload", "owner", "depth", "tasks", "mode" };
  for (size_t i = 0; i < UCB_ARRAY_SIZE (keys); i++)
    if (!json_equal (json_object_get (a, keys[i]), json_object_get (b, keys[i])))
      return false;
  return true;
}

void
ucb_report_scalability (json_t *results)
{
  size_t n = json_array_size (results);
  cleanup_free double *base = xcalloc (n, sizeof *base);

  for (size_t i = 0; i < n; i++)
    {
      json_t *r = json_array_get (results, i);
      json_t *sum = json_object_get (r, "summary");
      json_int_t containers = json_integer_value (json_object_get (r, "containers"));
      size_t nb = 0;
      double one;

      for (size_t j = 0; j < n; j++)
        {
          json_t *b = json_array_get (results, j);
          json_t *t = json_object_get (json_object_get (b, "summary"), "total_ops_per_s");
          if (json_integer_value (json_object_get (b, "containers")) == 1 && same_series (r, b)
              && json_is_number (t))
            base[nb++] = json_number_value (t);
        }
      one = ucb_median (base, nb);
      if (nb > 0 && one > 0 && containers > 0)
        {
          double total = json_number_value (json_object_get (sum, "total_ops_per_s"));
          ucb_json_set (sum, "scalability", ucb_json_real (total / ((double) containers * one)));
        }
    }
}

json_t *
ucb_report_config (const struct ucb_run_options *o, const struct ucb_placement *pl)
{
  json_t *c = ucb_json_obj (), *w = ucb_json_arr (), *n = ucb_json_arr (), *ow = ucb_json_arr (),
         *d = ucb_json_arr (), *pin = ucb_json_obj ();

  for (size_t i = 0; i < o->n_workloads; i++)
    ucb_json_push (w, ucb_json_str (o->workloads[i]->name));
  for (size_t i = 0; i < o->n_containers; i++)
    ucb_json_push (n, ucb_json_int (o->containers[i]));
  for (size_t i = 0; i < o->n_owners; i++)
    {
      cleanup_free char *name = ucb_owner_mode_name (&o->owners[i]);
      ucb_json_push (ow, ucb_json_str (name));
    }
  for (size_t i = 0; i < o->n_depths; i++)
    ucb_json_push (d, ucb_json_int (o->depths[i]));
  ucb_json_set (c, "workloads", w);
  ucb_json_set (c, "containers", n);
  ucb_json_set (c, "owners", ow);
  ucb_json_set (c, "depths", d);
  ucb_json_set (c, "tasks", ucb_json_int (1));
  ucb_json_set (c, "mode", ucb_json_str ("process"));
  ucb_json_set (c, "duration_s", ucb_json_real (o->duration));
  ucb_json_set (c, "warmup_s", ucb_json_real (o->warmup));
  ucb_json_set (c, "interval_s", ucb_json_real (o->interval));
  ucb_json_set (c, "repeat", ucb_json_int (o->repeat));
  ucb_json_set (c, "uid_base", ucb_json_int (o->uid_base));
  ucb_json_set (pin, "mode",
                ucb_json_str (o->pin == UCB_PIN_AUTO   ? "auto"
                              : o->pin == UCB_PIN_NONE ? "none"
                                                       : "list"));
  ucb_json_set (pin, "cpus", cpus_json (pl->cpus, pl->ncpus));
  ucb_json_set (pin, "allowed", cpus_json (pl->allowed, pl->nallowed));
  ucb_json_set (c, "pin", pin);
  ucb_json_set (c, "output", ucb_json_str (o->output));
  ucb_json_set (c, "format", ucb_json_str (o->format == UCB_FORMAT_JSON ? "json" : "text"));
  ucb_json_set (c, "quiet", json_boolean (o->quiet));
  return c;
}

json_t *
ucb_report_document (int argc, char **argv, double start_realtime, double duration_s, json_t *host,
                     json_t *config, json_t *results)
{
  json_t *doc = ucb_json_obj (), *tool = ucb_json_obj (), *run = ucb_json_obj (),
         *av = ucb_json_arr ();
  char when[64] = "";
  time_t secs = (time_t) start_realtime;
  struct tm tm;

  if (gmtime_r (&secs, &tm))
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  ucb_json_push (av, ucb_json_str (PACKAGE_NAME)); /* argv holds the subcommand onwards */
  for (int i = 0; i < argc; i++)
    ucb_json_push (av, ucb_json_str (argv[i]));
  ucb_json_set (tool, "name", ucb_json_str (PACKAGE_NAME));
  ucb_json_set (tool, "version", ucb_json_str (PACKAGE_VERSION));
  ucb_json_set (run, "start_time", ucb_json_str (when));
  ucb_json_set (run, "start_epoch_s", ucb_json_int ((long long) start_realtime));
  ucb_json_set (run, "duration_s", ucb_json_real (duration_s));
  ucb_json_set (run, "argv", av);
  ucb_json_set (doc, "schema", ucb_json_str (UCB_SCHEMA));
  ucb_json_set (doc, "tool", tool);
  ucb_json_set (doc, "run", run);
  ucb_json_set (doc, "host", host ? host : json_null ());
  ucb_json_set (doc, "config", config);
  ucb_json_set (doc, "results", results);
  return doc;
}

int
ucb_report_write_file (const json_t *doc, const char *path, ucb_error_t *err)
{
  cleanup_free char *tmp = xasprintf ("%s.XXXXXX", path);
  cleanup_file FILE *f = NULL;
  int fd = mkstemp (tmp);

  if (fd < 0)
    return ucb_make_error (err, errno, "create `%s`", tmp);
  f = fdopen (fd, "w");
  if (f == NULL)
    {
      close (fd);
      unlink (tmp);
      return ucb_make_error (err, errno, "fdopen `%s`", tmp);
    }
  if (ucb_json_write (doc, f, err) < 0 || fchmod (fd, 0644) < 0 || fsync (fd) < 0)
    {
      unlink (tmp);
      return ucb_error_wrap (err, "`%s`", path);
    }
  if (fclose (steal_pointer (&f)) != 0 || rename (tmp, path) < 0)
    {
      int e = errno;
      unlink (tmp);
      return ucb_make_error (err, e, "write `%s`", path);
    }
  return 0;
}

static double
num (json_t *o, const char *key)
{
  json_t *v = json_object_get (o, key);
  return json_is_number (v) ? json_number_value (v) : NAN;
}

/* A number for the table: "-" for null (NaN), as JSON has it. */
static const char *
cell (char *buf, size_t len, int decimals, double v)
{
  if (!isfinite (v))
    return "-";
  snprintf (buf, len, "%.*f", decimals, v);
  return buf;
}

void
ucb_report_text (FILE *f, const json_t *doc)
{
  json_t *results = json_object_get (doc, "results");
  size_t i;
  json_t *r;

  fprintf (f, "%-9s %-9s %5s %5s %14s %6s %14s %7s %8s %9s %7s\n", "workload", "owner", "depth",
           "N", "ops/s/cont", "±%", "total ops/s", "scale", "fairness", "cpu ns/op", "failed");
  json_array_foreach (results, i, r)
  {
    json_t *s = json_object_get (r, "summary");
    const char *status = json_string_value (json_object_get (r, "status"));
    char b[6][32];

    fprintf (f, "%-9s %-9s %5lld %5lld ", json_string_value (json_object_get (r, "workload")),
             json_string_value (json_object_get (r, "owner")),
             json_integer_value (json_object_get (r, "depth")),
             json_integer_value (json_object_get (r, "containers")));
    if (status && strcmp (status, "ok") != 0)
      {
        fprintf (f, "%s: %s\n", status, json_string_value (json_object_get (r, "reason")));
        continue;
      }
    fprintf (f, "%14s %6s %14s %7s %8s %9s %7lld\n",
             cell (b[0], sizeof b[0], 0, num (s, "per_container_ops")),
             cell (b[1], sizeof b[1], 1, num (s, "cv") * 100),
             cell (b[2], sizeof b[2], 0, num (s, "total_ops_per_s")),
             cell (b[3], sizeof b[3], 3, num (s, "scalability")),
             cell (b[4], sizeof b[4], 3, num (s, "fairness")),
             cell (b[5], sizeof b[5], 1, num (s, "cpu_ns_per_op")),
             json_integer_value (json_object_get (s, "failed_ops")));
  }
  fprintf (f,
           "(ops/s/cont = total/N; ±%% = spread across containers; scale = total/(N x 1-container "
           "total))\n");
}
