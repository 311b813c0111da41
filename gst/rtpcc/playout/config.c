/* RtpccPlayout's configuration: defaults and validation (see playout.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include <rtpcc/playout.h>

const gchar *
rtpcc_playout_mode_name (RtpccPlayoutMode mode)
{
  switch (mode) {
    case RTPCC_PLAYOUT_MODE_ADAPTIVE:
      return "adaptive";
    case RTPCC_PLAYOUT_MODE_SINGH:
      return "singh";
    case RTPCC_PLAYOUT_MODE_FIXED:
      return "fixed";
  }
  return "unknown";
}

void
rtpcc_playout_config_init (RtpccPlayoutConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->mode = RTPCC_PLAYOUT_MODE_ADAPTIVE;
  config->clock_rate = 90000;
  config->percentile = 99.9;
  config->window = RTPCC_SEC (2);
  config->window_packets = 500;
  config->min_delay = 0;
  config->max_delay = RTPCC_MSEC (400);
  config->fec_window = 0;
  config->fec_window_max = RTPCC_PLAYOUT_FEC_AUTO_MAX;
  config->down_rate = 0.5;
  config->return_time = RTPCC_MSEC (100);
  config->late_bump = TRUE;
  config->hold = RTPCC_MSEC (500);
  config->bump_margin = 0;
  config->level_window = RTPCC_SEC (2);
  config->late_target = 0.5;
  config->drift_window = RTPCC_SEC (30);
  config->max_queue = 4096;
}

gboolean
rtpcc_playout_config_validate (const RtpccPlayoutConfig * c, GError ** error)
{
  const gchar *what = NULL;

  if (c->clock_rate == 0)
    what = "clock rate must be > 0";
  else if (!(c->percentile > 0.0 && c->percentile <= 100.0))
    what = "percentile must be in (0, 100]";
  else if (c->window <= 0 || c->window_packets < 1 ||
      c->window_packets > 100000)
    what = "window must be > 0 and window-packets in [1, 100000]";
  else if (c->min_delay < 0 || c->max_delay < c->min_delay)
    what = "need 0 <= min-delay <= max-delay";
  else if ((c->fec_window < 0 && c->fec_window != RTPCC_PLAYOUT_FEC_AUTO)
      || c->fec_window_max < 0 || c->hold < 0 || c->bump_margin < 0
      || c->return_time < 0)
    what = "fec-window, fec-window-max, hold, bump-margin and return-time "
        "must be >= 0";
  else if (!(c->down_rate >= 0.0 && c->down_rate <= 1.0))
    what = "down-rate must be in [0, 1]";
  else if (c->level_window <= 0)
    what = "level-window must be > 0";
  else if (!(c->late_target >= 0.0 && c->late_target <= 20.0))
    what = "late-target must be in [0, 20] %";
  else if (c->drift_window < RTPCC_SEC (4))
    what = "drift-window must be >= 4 s";
  else if (c->max_queue < 1)
    what = "max-queue must be >= 1";
  else if ((guint) c->mode > RTPCC_PLAYOUT_MODE_FIXED)
    what = "unknown mode";

  if (what) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "playout: %s", what);
    return FALSE;
  }
  return TRUE;
}
