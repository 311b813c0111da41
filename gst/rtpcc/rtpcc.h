/* gst-rtpcc — sans-I/O core library
 *
 * Umbrella header. Everything in libgstrtpcc takes the current time as an
 * argument (RtpccTime, nanoseconds) and draws randomness from an RtpccRng it
 * is handed, so the simulator and the elements drive identical code and any
 * run can be replayed exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_H__
#define __RTPCC_H__

#include <rtpcc/common.h>

#include <rtpcc/rng.h>
#include <rtpcc/ratewindow.h>
#include <rtpcc/net/capacity.h>
#include <rtpcc/net/loss.h>
#include <rtpcc/net/link.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/ccfb.h>
#include <rtpcc/feedback/arrivallog.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/nack.h>
#include <rtpcc/feedback/psfb.h>
#include <rtpcc/feedback/tmmbr.h>
#include <rtpcc/feedback/remb.h>
#include <rtpcc/feedback/nadu.h>
#include <rtpcc/feedback/reportinterval.h>
#include <rtpcc/controller.h>
#include <rtpcc/tcpeq.h>
#include <rtpcc/circuitbreaker.h>
#include <rtpcc/pacer.h>
#include <rtpcc/sendbuf.h>
#include <rtpcc/frametype.h>
#include <rtpcc/encoderrate.h>
#include <rtpcc/encoderloop.h>
#include <rtpcc/encodersplit.h>
#include <rtpcc/packet.h>
#include <rtpcc/lossevents.h>
#include <rtpcc/lossburst.h>
#include <rtpcc/senthistory.h>
#include <rtpcc/feedbackadapter.h>
#include <rtpcc/ratecap.h>
#include <rtpcc/rembestimator.h>
#include <rtpcc/naduestimator.h>
#include <rtpcc/transportfeedback.h>
#include <rtpcc/deliveryrate.h>
#include <rtpcc/prober.h>
#include <rtpcc/egress.h>
#include <rtpcc/target.h>
#include <rtpcc/sender.h>
#include <rtpcc/receiver.h>
#include <rtpcc/peer.h>
#include <rtpcc/playout.h>
#include <rtpcc/rtx.h>
#include <rtpcc/repair.h>
#include <rtpcc/rtxsender.h>
#include <rtpcc/rtxreceiver.h>
#include <rtpcc/srtp.h>
#include <rtpcc/fec/fec.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/mprtp/skew.h>
#include <rtpcc/mprtp/couple.h>
#include <rtpcc/mprtp/sched.h>
#include <rtpcc/mprtp/pathsender.h>
#include <rtpcc/mprtp/repairseq.h>

#endif /* __RTPCC_H__ */
