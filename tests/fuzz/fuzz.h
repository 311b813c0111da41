/* Shared declarations of the fuzz targets and their replay driver.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FUZZ_H__
#define __RTPCC_FUZZ_H__

#include <rtpcc/rtpcc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Valid inputs for the target (GBytes), for the replay driver to run and
 * mutate: fuzzing from well-formed packets reaches the deep paths that
 * random bytes rarely do. */
void rtpcc_fuzz_seeds (GPtrArray * seeds);

/* An invariant of the code under test broke: report and crash, so that
 * both libFuzzer and the replay test flag it. */
#define FUZZ_CHECK(cond)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf (stderr, "%s:%d: invariant failed: %s\n", __FILE__,         \
          __LINE__, #cond);                                               \
      abort ();                                                           \
    }                                                                     \
  } while (0)

#endif
