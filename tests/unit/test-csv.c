/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-csv.c - JSON rows as CSV: RFC 4180 quoting, one record a line, dotted headers, nulls,
 * arrays; and the XML and line escaping of the other text outputs (core/util.c). */
#include "config.h"

#include <jansson.h>

#include "../tap.h"
#include "core/util.h"
#include "report/csv.h"

static char *
csv_of (const char *json)
{
  json_error_t e;
  json_t *rows = json_loads (json, 0, &e);
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  if (rows == NULL)
    printf ("# bad test input: %s\n", e.text);
  ucb_csv_write_rows (f, rows);
  fclose (f);
  json_decref (rows);
  return out;
}

static void
test_quoting (void)
{
  char *s = csv_of ("[{\"a\": \"x,y\", \"b\": \"say \\\"hi\\\"\", \"c\": \"l1\\nl2\", "
                    "\"d\": \"cr\\r\", \"e\": \"plain\"}]");

  tap_check_str (s, "a,b,c,d,e\r\n\"x,y\",\"say \"\"hi\"\"\",l1\\nl2,cr\\r,plain\r\n");
  free (s);
  /* One record a line: U+2028, U+2029, NEL, \v and RS escaped too, in quotes or not. */
  s = csv_of ("[{\"a\": \"x\\u2028ok,\\u2029\", \"b\": \"\\u0085\\u000b\\u001e\"}]");
  tap_check_str (s, "a,b\r\n\"x\\xe2\\x80\\xa8ok,\\xe2\\x80\\xa9\",\\xc2\\x85\\x0b\\x1e\r\n");
  free (s);
}

static void
test_shape (void)
{
  /* Nested objects dotted; the union of the keys in the order first met; null and absent
   * empty; arrays of scalars one cell; arrays of objects left out; numbers as JSON has them. */
  char *s = csv_of ("[{\"w\": \"sig\", \"n\": 1, \"s\": {\"cv\": null, \"ops\": 2.5}, "
                    "\"pc\": [{\"i\": 0}], \"cpus\": [0, 2], \"ok\": true},"
                    " {\"w\": \"fork\", \"n\": 2, \"s\": {\"cv\": 0.125, \"new\": 7}, "
                    "\"ok\": false}]");

  tap_check_str (s, "w,n,s.cv,s.ops,cpus,ok,s.new\r\n"
                    "sig,1,,2.5,0 2,true,\r\n"
                    "fork,2,0.125,,,false,7\r\n");
  free (s);
  s = csv_of ("[]");
  tap_check_str (s, "\r\n");
  free (s);
}

static void
test_xml (void)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  ucb_xml_puts (f, "a&b <c> \"d\" 'e'\nf\tg\x01h\x7f");
  ucb_xml_puts (f, NULL);
  fclose (f);
  tap_check_str (out, "a&amp;b &lt;c&gt; &quot;d&quot; &#39;e&#39;&#10;f\tg?h\x7f");
  free (out);
}

/* What XML 1.0's Char excludes even as a reference: U+FFFE, U+FFFF, surrogates and bytes that
 * are no UTF-8 as U+FFFD; C0 (CR, FS, RS ...) as ?; the rest of Unicode kept. */
static void
test_xml_chars (void)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  ucb_xml_puts (f,
                "a\xef\xbf\xbe"
                "b\xef\xbf\xbf"
                "c\xed\xa0\x80"
                "d\xff\xc3"
                "e\r\x1c\x1e\x0b\x0c|\xef\xbf\xbd\xef\xbf\xbc\xe2\x80\xa8\xc2\x85\xf4\x8f\xbf\xbf");
  fclose (f);
  tap_check_str (out, "a\xef\xbf\xbd"
                      "b\xef\xbf\xbd"
                      "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                      "d\xef\xbf\xbd\xef\xbf\xbd"
                      "e?????|\xef\xbf\xbd\xef\xbf\xbc\xe2\x80\xa8\xc2\x85\xf4\x8f\xbf\xbf");
  free (out);
}

/* The line family's writer: ucb_escape_controls() on a stream; NULL writes nothing. */
static void
test_line (void)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  ucb_line_puts (f, "a\nb\xe2\x80\xa9\xc2\x85\xfe");
  ucb_line_puts (f, NULL);
  fclose (f);
  tap_check_str (out, "a\\nb\\xe2\\x80\\xa9\\xc2\\x85\\xfe");
  free (out);
}

static const struct tap_test tests[] = {
  { "RFC 4180: comma and quote quoted, quotes doubled; every line break escaped", test_quoting },
  { "headers: dotted paths, union in order; null empty, arrays joined or left out", test_shape },
  { "XML text: the five entities, LF as a reference, control characters as ?", test_xml },
  { "XML text: U+FFFE, U+FFFF, surrogates, invalid UTF-8 as U+FFFD", test_xml_chars },
  { "line text: every line break escaped", test_line },
};

TAP_MAIN (tests)
