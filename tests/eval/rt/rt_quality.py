"""Video quality of one real-time flow (docs/realtime-eval.md).

Frame alignment is the usual full-reference practice for real-time video
(a missing frame shows as a freeze): every source
frame n that the sender sent is one display slot; the slot shows received
frame n if it was decoded, else a copy of the last decoded frame before it
(the "freeze" practice), so lost, undecodable and late frames score as the
repeated frame. The frame number comes from the barcode that rt-flow.py
stamps into each frame (equivalent to deriving it from the RTP timestamp,
which is n * 90000 / fps plus a random offset, but also robust to our
sender's and the peer's different RTP timestamp bases). A frame whose
barcode the decoder's concealment damaged is numbered from its
neighbours and its display time.

PSNR and SSIM come from ffmpeg's psnr and ssim filters over the aligned
stream against the regenerated reference.
"""
import importlib.util
import os
import re
import subprocess

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "rt_flow", os.path.join(_here, "rt-flow.py"))
rt_flow = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt_flow)


def _read_csv(path):
    with open(path) as f:
        next(f)
        return [line.strip().split(",") for line in f if line.strip()]


def number_frames(recv, fps):
    """recv: [(index, n or -1, t_display)] in display order -> list of
    (index, n, t, readable). Unreadable ones get n from the previous frame
    and the display-time gap, kept below the next readable number."""
    out = []
    nxt = [None] * len(recv)
    upcoming = None
    for i in range(len(recv) - 1, -1, -1):
        nxt[i] = upcoming
        if recv[i][1] >= 0:
            upcoming = recv[i][1]
    prev_n, prev_t = None, None
    for i, (idx, n, t) in enumerate(recv):
        ok = n >= 0
        if not ok:
            if prev_n is None:
                continue        # nothing to anchor it to
            n = prev_n + max(1, int(round((t - prev_t) * fps)))
            if nxt[i] is not None and n >= nxt[i]:
                n = nxt[i] - 1
            if n <= prev_n:
                continue
        elif prev_n is not None and n <= prev_n:
            continue            # a duplicate or a misread: keep order
        out.append((idx, n, t, ok))
        prev_n, prev_t = n, t
    return out


def _percentile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def analyse(sender_frames, recv_frames, raw, width, height, fps, workdir,
            keep=False):
    sent = [(int(r[0]), float(r[1])) for r in _read_csv(sender_frames)]
    recv = [(int(r[0]), int(r[1]), float(r[2]))
            for r in _read_csv(recv_frames)]
    res = {"frames_sent": len(sent), "frames_decoded": len(recv)}
    if not sent:
        return res
    numbered = number_frames(recv, fps)
    res["frames_unreadable"] = sum(1 for r in recv if r[1] < 0)
    t_cap = dict(sent)
    g2g = [(t - t_cap[n]) * 1000 for _, n, t, ok in numbered
           if ok and n in t_cap]
    res["g2g_mean_ms"] = sum(g2g) / len(g2g) if g2g else float("nan")
    res["g2g_p95_ms"] = _percentile(g2g, 0.95)
    by_n = {n: idx for idx, n, _, _ in numbered}
    have = sorted(by_n)
    # slots: every sent frame; frozen when its own frame never showed
    frozen = sum(1 for n, _ in sent if n not in by_n)
    res["freeze_pct"] = 100.0 * frozen / len(sent)
    fsize = width * height * 3 // 2
    if not have or not raw or not os.path.exists(raw):
        return res
    data = np.memmap(raw, dtype=np.uint8, mode="r")
    nraw = data.size // fsize
    os.makedirs(workdir, exist_ok=True)
    ref_path = os.path.join(workdir, "ref.yuv")
    dis_path = os.path.join(workdir, "aligned.yuv")
    src = rt_flow.FrameSource(width, height, fps)
    slots = 0
    j = 0
    shown = None
    with open(ref_path, "wb") as ref, open(dis_path, "wb") as dis:
        for n, _ in sent:
            while src.n <= n:
                frame = src.next()
            while j < len(have) and have[j] <= n:
                shown = by_n[have[j]]
                j += 1
            if shown is None or shown >= nraw:
                continue        # before the first decoded frame: no picture
            ref.write(frame.tobytes())
            dis.write(data[shown * fsize:(shown + 1) * fsize].tobytes())
            slots += 1
    src.close()
    res["quality_slots"] = slots
    psnr_log = os.path.join(workdir, "psnr.log")
    ssim_log = os.path.join(workdir, "ssim.log")
    fmt = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s",
           f"{width}x{height}", "-r", str(fps)]
    cmd = (["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + fmt +
           ["-i", dis_path] + fmt + ["-i", ref_path, "-lavfi",
           f"[0:v]split[a][b];[1:v]split[c][d];"
           f"[a][c]psnr=stats_file={psnr_log};"
           f"[b][d]ssim=stats_file={ssim_log}", "-f", "null", "-"])
    subprocess.run(cmd, check=True)
    psnr = []
    for line in open(psnr_log):
        m = re.search(r"psnr_y:(\S+)", line)
        if m:
            v = float(m.group(1)) if m.group(1) != "inf" else 100.0
            psnr.append(min(v, 100.0))
    ssim = []
    for line in open(ssim_log):
        m = re.search(r"All:(\S+)", line)
        if m:
            ssim.append(float(m.group(1)))
    res["psnr_y_mean"] = sum(psnr) / len(psnr) if psnr else float("nan")
    res["psnr_y_p5"] = _percentile(psnr, 0.05)
    res["ssim_mean"] = sum(ssim) / len(ssim) if ssim else float("nan")
    res["ssim_p5"] = _percentile(ssim, 0.05)
    res["psnr_per_frame"] = psnr
    res["ssim_per_frame"] = ssim
    if not keep:
        for p in (ref_path, dis_path, psnr_log, ssim_log):
            if os.path.exists(p):
                os.remove(p)
    return res


if __name__ == "__main__":
    import sys
    import json
    if len(sys.argv) != 8:
        sys.exit("usage: rt_quality.py SENDER_FRAMES RECV_FRAMES RAW W H FPS "
                 "WORKDIR")
    r = analyse(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]),
                int(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
    r.pop("psnr_per_frame", None)
    r.pop("ssim_per_frame", None)
    print(json.dumps(r, indent=1))
