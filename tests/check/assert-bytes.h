/* Byte-exact comparison for the wire-format tests.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __ASSERT_BYTES_H__
#define __ASSERT_BYTES_H__

#include <gst/check/gstcheck.h>

/* @got (@got_len bytes) must equal the array @want, byte for byte. */
#define assert_bytes(got, got_len, want)                                    \
  G_STMT_START {                                                            \
    gsize _wl = sizeof (want);                                              \
    fail_unless_equals_int ((gint) (got_len), (gint) _wl);                  \
    for (gsize _i = 0; _i < _wl; _i++)                                      \
      fail_unless ((got)[_i] == (want)[_i],                                 \
          "byte %" G_GSIZE_FORMAT ": got 0x%02x, want 0x%02x", _i,          \
          (got)[_i], (want)[_i]);                                           \
  } G_STMT_END

#endif
