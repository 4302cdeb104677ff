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

#include "report.h"
#include "stats.h"
#include "util.h"
#include "workload.h"

#define DUMP_FLAGS (JSON_INDENT (2) | JSON_SORT_KEYS | JSON_REAL_PRECISION (10))

/* Attach or die: the only failure of json_object_set_new is allocation. */
static void
set (json_t *obj, const char *key, json_t *v)
{
  if (v == NULL || json_object_set_new (obj, key, v) < 0)
    ucb_oom ();
}

static void
push (json_t *arr, json_t *v)
{
  if (v == NULL || json_array_append_new (arr, v) < 0)
    ucb_oom ();
}

static json_t *
obj (void)
{
  json_t *o = json_object ();
  if (o == NULL)
    ucb_oom ();
  return o;
}

static json_t *
arr (void)
{
  json_t *a = json_array ();
  if (a == NULL)
    ucb_oom ();
  return a;
}

json_t *
ucb_json_real (double v)
{
  json_t *j = isfinite (v) ? json_real (v) : json_null ();
  if (j == NULL)
    ucb_oom ();
  return j;
}

static json_t *
jint (long long v)
{
  json_t *j = json_integer (v);
  if (j == NULL)
    ucb_oom ();
  return j;
}

static json_t *
jstr (const char *s)
{
  json_t *j = s ? json_string (s) : json_null ();
  if (j == NULL)
    ucb_oom ();
  return j;
}

static json_t *
stats_json (const struct ucb_stats *s)
{
  json_t *o = obj ();
  set (o, "mean", ucb_json_real (s->mean));
  set (o, "median", ucb_json_real (s->median));
  set (o, "stddev", ucb_json_real (s->stddev));
  set (o, "min", ucb_json_real (s->min));
  set (o, "max", ucb_json_real (s->max));
  set (o, "cv", ucb_json_real (s->cv));
  return o;
}

static json_t *
cpus_json (const int *cpus, size_t n)
{
  json_t *a = arr ();
  for (size_t i = 0; i < n; i++)
    push (a, jint (cpus[i]));
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
  json_t *o = obj (), *samples = arr ();
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
      json_t *smp = obj ();

      rates[k - 1] = dt > 0 ? (double) (b->ops - a->ops) / dt : NAN;
      set (smp, "t", ucb_json_real ((double) (b->t_ns - s->start_ns) / 1e9));
      set (smp, "dt", ucb_json_real (dt));
      set (smp, "ops", jint ((long long) (b->ops - a->ops)));
      set (smp, "ops_per_s", ucb_json_real (rates[k - 1]));
      set (smp, "failed_ops", jint ((long long) (b->fails - a->fails)));
      push (samples, smp);
    }
  ucb_stats_compute (rates, s->nreadings - 1, &st);
  if (last->cpu_ns > 0 && ops > 0)
    cpu_ns_per_op = (double) (last->cpu_ns - first->cpu_ns) / (double) ops;
  if (last->cpu_ns > 0 && span_s > 0)
    cpu_util = (double) (last->cpu_ns - first->cpu_ns) / 1e9 / span_s;

  set (o, "index", jint (c->index));
  set (o, "owner_uid", jint (c->owner_uid));
  set (o, "depth", jint (c->depth));
  if (c->cpu >= 0)
    set (o, "cpus", cpus_json (&c->cpu, 1));
  else
    set (o, "cpus", cpus_json (pl->allowed, pl->nallowed));
  set (o, "pinned", json_boolean (c->cpu >= 0));
  set (o, "task_pid", jint (c->task_pid));
  set (o, "task_uid", c->task_uid == (uid_t) -1 ? json_null () : jint (c->task_uid));
  set (o, "userns_inode", c->userns_ino ? jint ((long long) c->userns_ino) : json_null ());
  set (o, "ops", jint ((long long) ops));
  set (o, "rate_ops_per_s", ucb_json_real (rate));
  set (o, "ops_per_s", stats_json (&st));
  set (o, "cpu_ns_per_op", ucb_json_real (cpu_ns_per_op));
  set (o, "cpu_utilization", ucb_json_real (cpu_util));
  set (o, "failed_ops", jint ((long long) (last->fails - first->fails)));
  set (o, "last_errno", c->last_errno ? jstr (strerrorname_np (c->last_errno)) : json_null ());
  set (o, "samples", samples);
  *rate_out = rate;
  *cpu_ns_out = cpu_ns_per_op;
  *fails_out = last->fails - first->fails;
  return o;
}

json_t *
ucb_report_point (const struct ucb_point_result *r, const struct ucb_placement *pl)
{
  size_t n = r->pt.containers;
  cleanup_free double *rates = xcalloc (n, sizeof *rates);
  cleanup_free double *cpu = xcalloc (n, sizeof *cpu);
  cleanup_free char *owner = ucb_owner_mode_name (&r->pt.owner);
  json_t *o = obj (), *pc = arr (), *sum = obj ();
  struct ucb_stats across;
  double total = 0;
  uint64_t fails = 0;
  size_t ncpu = 0;

  set (o, "workload", jstr (r->pt.workload->name));
  set (o, "counter", jstr (r->pt.workload->counter));
  set (o, "containers", jint (n));
  set (o, "owner", jstr (owner));
  set (o, "depth", jint (r->pt.depth));
  set (o, "tasks", jint (r->pt.tasks));
  set (o, "mode", jstr ("process"));
  set (o, "repeat", jint (r->pt.repeat));
  set (o, "setup_s", ucb_json_real (r->setup_s));
  if (r->samples.nreadings > 0)
    set (o, "measured_s",
         ucb_json_real ((double) (ucb_reading_at (&r->samples, r->samples.nreadings - 1, 0)->t_ns
                                  - ucb_reading_at (&r->samples, 0, 0)->t_ns)
                        / 1e9));
  for (size_t i = 0; i < n && r->samples.nreadings > 1; i++)
    {
      double c_ns;
      uint64_t f;
      push (pc, container_json (r, pl, i, &rates[i], &c_ns, &f));
      total += isfinite (rates[i]) ? rates[i] : 0;
      fails += f;
      if (isfinite (c_ns))
        cpu[ncpu++] = c_ns;
    }
  set (o, "per_container", pc);
  ucb_stats_compute (rates, n, &across);
  set (sum, "total_ops_per_s", ucb_json_real (total));
  set (sum, "per_container_ops", ucb_json_real (total / (double) n));
  set (sum, "scalability", json_null ());
  set (sum, "fairness", ucb_json_real (ucb_jain_index (rates, n)));
  set (sum, "cv", ucb_json_real (across.cv));
  set (sum, "min_container_ops", ucb_json_real (across.min));
  set (sum, "max_container_ops", ucb_json_real (across.max));
  set (sum, "cpu_ns_per_op", ucb_json_real (ucb_median (cpu, ncpu)));
  set (sum, "failed_ops", jint ((long long) fails));
  set (sum, "idle_pct", ucb_json_real (r->idle_pct));
  set (sum, "steal_pct", ucb_json_real (r->steal_pct));
  set (o, "summary", sum);
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
          set (sum, "scalability", ucb_json_real (total / ((double) containers * one)));
        }
    }
}

json_t *
ucb_report_config (const struct ucb_run_options *o, const struct ucb_placement *pl)
{
  json_t *c = obj (), *w = arr (), *n = arr (), *ow = arr (), *d = arr (), *pin = obj ();

  for (size_t i = 0; i < o->n_workloads; i++)
    push (w, jstr (o->workloads[i]->name));
  for (size_t i = 0; i < o->n_containers; i++)
    push (n, jint (o->containers[i]));
  for (size_t i = 0; i < o->n_owners; i++)
    {
      cleanup_free char *name = ucb_owner_mode_name (&o->owners[i]);
      push (ow, jstr (name));
    }
  for (size_t i = 0; i < o->n_depths; i++)
    push (d, jint (o->depths[i]));
  set (c, "workloads", w);
  set (c, "containers", n);
  set (c, "owners", ow);
  set (c, "depths", d);
  set (c, "tasks", jint (1));
  set (c, "mode", jstr ("process"));
  set (c, "duration_s", ucb_json_real (o->duration));
  set (c, "warmup_s", ucb_json_real (o->warmup));
  set (c, "interval_s", ucb_json_real (o->interval));
  set (c, "repeat", jint (o->repeat));
  set (c, "uid_base", jint (o->uid_base));
  set (pin, "mode", jstr (o->pin == UCB_PIN_AUTO ? "auto" : o->pin == UCB_PIN_NONE ? "none" : "list"));
  set (pin, "cpus", cpus_json (pl->cpus, pl->ncpus));
  set (pin, "allowed", cpus_json (pl->allowed, pl->nallowed));
  set (c, "pin", pin);
  set (c, "output", jstr (o->output));
  set (c, "format", jstr (o->format == UCB_FORMAT_JSON ? "json" : "text"));
  set (c, "quiet", json_boolean (o->quiet));
  return c;
}

json_t *
ucb_report_document (int argc, char **argv, double start_realtime, double duration_s,
                     json_t *host, json_t *config, json_t *results)
{
  json_t *doc = obj (), *tool = obj (), *run = obj (), *av = arr ();
  char when[64] = "";
  time_t secs = (time_t) start_realtime;
  struct tm tm;

  if (gmtime_r (&secs, &tm))
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  push (av, jstr (PACKAGE_NAME)); /* argv holds the subcommand onwards */
  for (int i = 0; i < argc; i++)
    push (av, jstr (argv[i]));
  set (tool, "name", jstr (PACKAGE_NAME));
  set (tool, "version", jstr (PACKAGE_VERSION));
  set (run, "start_time", jstr (when));
  set (run, "start_epoch_s", jint ((long long) start_realtime));
  set (run, "duration_s", ucb_json_real (duration_s));
  set (run, "argv", av);
  set (doc, "schema", jstr (UCB_SCHEMA));
  set (doc, "tool", tool);
  set (doc, "run", run);
  set (doc, "host", host ? host : json_null ());
  set (doc, "config", config);
  set (doc, "results", results);
  return doc;
}

int
ucb_report_write_stream (const json_t *doc, FILE *f, ucb_error_t *err)
{
  if (json_dumpf (doc, f, DUMP_FLAGS) < 0 || fputc ('\n', f) == EOF || fflush (f) != 0)
    return ucb_make_error (err, errno, "write JSON document");
  return 0;
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
  if (ucb_report_write_stream (doc, f, err) < 0 || fchmod (fd, 0644) < 0 || fsync (fd) < 0)
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
    double scal = num (s, "scalability");
    double cv = num (s, "cv");
    char scal_s[16] = "-", cv_s[16] = "-";

    if (isfinite (scal))
      snprintf (scal_s, sizeof scal_s, "%.3f", scal);
    if (isfinite (cv))
      snprintf (cv_s, sizeof cv_s, "%.1f", cv * 100);
    fprintf (f, "%-9s %-9s %5lld %5lld %14.0f %6s %14.0f %7s %8.3f %9.1f %7lld\n",
             json_string_value (json_object_get (r, "workload")),
             json_string_value (json_object_get (r, "owner")),
             json_integer_value (json_object_get (r, "depth")),
             json_integer_value (json_object_get (r, "containers")),
             num (s, "per_container_ops"), cv_s, num (s, "total_ops_per_s"), scal_s,
             num (s, "fairness"), num (s, "cpu_ns_per_op"),
             json_integer_value (json_object_get (s, "failed_ops")));
  }
  fprintf (f, "(ops/s/cont = total/N; ±%% = spread across containers; scale = total/(N x 1-container "
              "total))\n");
}
