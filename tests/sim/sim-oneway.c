/* SimOneWay: the smallest complete scenario, shared by the CLI, the tests
 * and the benchmark so they all measure the same wiring:
 *
 *   source → send tap → SimLink → receive tap (sink)
 *                          └─ drops → metrics
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

void
sim_oneway_config_init (SimOneWayConfig * config)
{
  config->source = SIM_SOURCE_CBR;
  sim_cbr_config_init (&config->cbr);
  sim_frame_config_init (&config->frames);
  rtpcc_link_config_init (&config->link);
  config->interval = RTPCC_MSEC (200);
  config->log = NULL;
}

SimOneWay *
sim_oneway_new (const SimOneWayConfig * config)
{
  SimOneWay *ow = g_new0 (SimOneWay, 1);

  ow->sim = sim_new ();
  ow->metrics = sim_metrics_new (0, config->interval);
  if (config->log)
    sim_metrics_set_log (ow->metrics, config->log);

  ow->recv_tap = sim_tap_new (ow->metrics, SIM_TAP_RECEIVE, NULL);
  ow->link = sim_link_new (&config->link, sim_tap_node (ow->recv_tap));
  sim_link_set_metrics (ow->link, ow->metrics);
  sim_metrics_set_bottleneck (ow->metrics, SIM_FLOW_ANY,
      sim_link_get_link (ow->link));
  ow->send_tap = sim_tap_new (ow->metrics, SIM_TAP_SEND,
      sim_link_node (ow->link));

  if (config->source == SIM_SOURCE_CBR) {
    sim_metrics_add_flow (ow->metrics, config->cbr.flow);
    ow->source = sim_cbr_source_new (ow->sim, &config->cbr,
        sim_tap_node (ow->send_tap));
  } else {
    sim_metrics_add_flow (ow->metrics, config->frames.flow);
    ow->source = sim_frame_source_new (ow->sim, &config->frames,
        sim_tap_node (ow->send_tap));
  }
  if (!ow->source) {
    sim_oneway_free (ow);
    return NULL;
  }
  return ow;
}

void
sim_oneway_run (SimOneWay * ow, RtpccTime t_end)
{
  sim_run_until (ow->sim, t_end);
  sim_metrics_finish (ow->metrics, t_end);
}

void
sim_oneway_free (SimOneWay * ow)
{
  if (!ow)
    return;
  /* Event owners first; the Sim then frees packets still in flight. */
  sim_source_free (ow->source);
  sim_free (ow->sim);
  sim_tap_free (ow->send_tap);
  sim_link_free (ow->link);
  sim_tap_free (ow->recv_tap);
  sim_metrics_free (ow->metrics);
  g_free (ow);
}
