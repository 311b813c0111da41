/* Controller parameters ("key=value", RtpccControllerOps.set_param) through
 * one table-driven parser: each controller describes its tunables as an
 * array of RtpccParamSpec (key, type, where the value lives in its struct,
 * accepted range) and calls rtpcc_params_set, then applies whatever side
 * effects a change needs. Internal to the library (not installed).
 *
 * Grammar, the same for every controller:
 *   DOUBLE  a finite number (g_ascii_strtod: 0.85, 1e3, ...)
 *   UINT    a number with no fractional part
 *   TIME    a number of milliseconds, kept to the whole ms (to the µs with
 *           RTPCC_PARAM_USEC); the range is in ms
 *   BOOL    true/false, yes/no, on/off, 1/0, any case
 *   CHOICE  one of the listed names, exactly; stored as its index
 * Numbers must fill the whole value and lie in [min, max] (an end with
 * RTPCC_PARAM_MIN_OPEN / _MAX_OPEN excluded).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_PARAMS_H__
#define __RTPCC_CC_PARAMS_H__

#include <rtpcc/common.h>

#include <stddef.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_PARAM_TYPE_DOUBLE,      /* gdouble */
  RTPCC_PARAM_TYPE_UINT,        /* guint */
  RTPCC_PARAM_TYPE_TIME,        /* RtpccTime */
  RTPCC_PARAM_TYPE_BOOL,        /* gboolean */
  RTPCC_PARAM_TYPE_CHOICE,      /* an int-sized enum or gboolean */
} RtpccParamType;

typedef enum
{
  RTPCC_PARAM_MIN_OPEN = 1 << 0,        /* min itself is out of range */
  RTPCC_PARAM_MAX_OPEN = 1 << 1,        /* max itself is out of range */
  RTPCC_PARAM_USEC = 1 << 2,    /* TIME: keep µs, not whole ms */
} RtpccParamFlags;

typedef struct
{
  const gchar *key;
  RtpccParamType type;
  gsize offset;                 /* of the field in the controller's struct */
  gdouble min, max;             /* numbers only */
  guint flags;                  /* RtpccParamFlags */
  const gchar *const *choices;  /* CHOICE: NULL-terminated names */
} RtpccParamSpec;

/* The offset of @field in @type, which must be of C type @ctype (a typo in
 * a table is a compile error, not a write of the wrong width). */
#define RTPCC_PARAM_OFFSET(type, field, ctype) \
  _Generic (((type *) 0)->field, ctype: offsetof (type, field))
/* ... of an int-sized field (enums, gboolean) */
#define RTPCC_PARAM_INT_OFFSET(type, field) (offsetof (type, field) + \
    0 * sizeof (char[sizeof (((type *) 0)->field) == sizeof (gint) ? 1 : -1]))

#define RTPCC_PARAM_DOUBLE(key, type, field, lo, hi, flags) \
  { key, RTPCC_PARAM_TYPE_DOUBLE, RTPCC_PARAM_OFFSET (type, field, gdouble), \
    lo, hi, flags, NULL }
#define RTPCC_PARAM_UINT(key, type, field, lo, hi) \
  { key, RTPCC_PARAM_TYPE_UINT, RTPCC_PARAM_OFFSET (type, field, guint), \
    lo, hi, 0, NULL }
#define RTPCC_PARAM_TIME(key, type, field, lo_ms, hi_ms, flags) \
  { key, RTPCC_PARAM_TYPE_TIME, RTPCC_PARAM_OFFSET (type, field, RtpccTime), \
    lo_ms, hi_ms, flags, NULL }
#define RTPCC_PARAM_BOOL(key, type, field) \
  { key, RTPCC_PARAM_TYPE_BOOL, RTPCC_PARAM_OFFSET (type, field, gboolean), \
    0, 0, 0, NULL }
#define RTPCC_PARAM_CHOICE(key, type, field, names) \
  { key, RTPCC_PARAM_TYPE_CHOICE, RTPCC_PARAM_INT_OFFSET (type, field), \
    0, 0, 0, names }

/* Finds @key in @specs, parses @value and stores it at @base + offset.
 * Returns the entry, or NULL (nothing stored) for an unknown key or a
 * malformed or out-of-range value. */
const RtpccParamSpec *rtpcc_params_set (const RtpccParamSpec * specs,
    guint n_specs, gpointer base, const gchar * key, const gchar * value);

G_END_DECLS

#endif /* __RTPCC_CC_PARAMS_H__ */
