"""Photograph or scan a flat document: perspective, rotation, background, light, blur, noise, JPEG.

Corners returned are the document's own corners in the output image, in the
document's order top-left, top-right, bottom-right, bottom-left (so after a 180°
rotation corners[0] is near the image's bottom-right). ``rotation`` is the
quarter-turn, counter-clockwise, applied to the upright document (``np.rot90``
convention): ``np.rot90(image, -rotation // 90)`` brings it back upright
(up to the small tilt).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from docauth.synth import scenes

ROTATION_WEIGHTS = {0: 0.7, 90: 0.1, 180: 0.1, 270: 0.1}


@dataclass
class CaptureResult:
    image: np.ndarray
    corners: list  # [[x, y]] x 4 of the captured region
    homography: np.ndarray  # flat image pixel -> output pixel
    info: dict = field(default_factory=dict)

    def project(self, points) -> list:
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2).tolist()


def capture_rotation(rng, rotation):
    if rotation is None:
        keys = list(ROTATION_WEIGHTS)
        rotation = int(rng.choice(keys, p=list(ROTATION_WEIGHTS.values())))
    if rotation not in (0, 90, 180, 270):
        raise ValueError(f"rotation must be 0, 90, 180 or 270, not {rotation!r}")
    return rotation


def _place(w, h, angle_deg, jitter, frame_w, frame_h, fill, rng, anchor=None, margin=0.02):
    """Destination quad for a w x h rectangle rotated by angle (CCW), perspective-jittered and scaled so its
    bounding box spans ``fill`` of the frame; placed at a random position (or towards ``anchor``)."""
    th = np.deg2rad(angle_deg)
    c, s = np.cos(th), np.sin(th)
    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float64)
    rot = np.stack([rect[:, 0] * c + rect[:, 1] * s, -rect[:, 0] * s + rect[:, 1] * c], 1)
    rot += rng.normal(0, jitter * min(w, h), size=(4, 2))
    span = rot.max(0) - rot.min(0)
    scale = fill * min(frame_w / span[0], frame_h / span[1])
    quad = rot * scale
    lo, hi = quad.min(0), quad.max(0)
    mx, my = margin * frame_w, margin * frame_h
    x_lo, x_hi = mx - lo[0], frame_w - mx - hi[0]
    y_lo, y_hi = my - lo[1], frame_h - my - hi[1]
    if x_hi < x_lo:  # too big even at this fill: centre it (callers keep fill < 1 - 2 margin)
        x_lo = x_hi = (x_lo + x_hi) / 2
    if y_hi < y_lo:
        y_lo = y_hi = (y_lo + y_hi) / 2
    if anchor is None:
        tx, ty = rng.uniform(x_lo, x_hi), rng.uniform(y_lo, y_hi)
    else:  # near a corner of the bed
        ax, ay = anchor
        tx = x_lo + (x_hi - x_lo) * (ax * (1 - rng.uniform(0, 0.15)) + (1 - ax) * rng.uniform(0, 0.15))
        ty = y_lo + (y_hi - y_lo) * (ay * (1 - rng.uniform(0, 0.15)) + (1 - ay) * rng.uniform(0, 0.15))
    return quad + np.array([tx, ty]), scale


def composite(bg: np.ndarray, flat: np.ndarray, alpha: np.ndarray | None, H: np.ndarray, quad: np.ndarray,
               shadow: float, rng) -> np.ndarray:
    """Warp ``flat`` onto the uint8 background; blend only inside the quad's bounding box (speed)."""
    fh, fw = bg.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(fw, x1), min(fh, y1)
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    Hr = shift @ H
    size = (x1 - x0, y1 - y0)
    out = bg.copy()
    if shadow > 0:  # soft drop shadow on the background around the document (quarter resolution)
        q = max(1, 4)
        small = np.zeros((fh // q + 1, fw // q + 1), np.float32)
        off = rng.uniform(-1, 1, 2) * min(fw, fh) * 0.012
        cv2.fillConvexPoly(small, np.int32((quad + off) / q), 1.0)
        k = int(max(3, min(fw, fh) / q * rng.uniform(0.01, 0.04))) | 1
        small = cv2.GaussianBlur(small, (k, k), 0)
        gain = np.clip((1.0 - shadow * small) * 128, 0, 255).astype(np.uint8)
        gain = cv2.resize(gain, (fw, fh), interpolation=cv2.INTER_LINEAR)
        out = cv2.multiply(out, cv2.cvtColor(gain, cv2.COLOR_GRAY2RGB), scale=1 / 128)
    warped = cv2.warpPerspective(flat, Hr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a_src = alpha if alpha is not None else np.full(flat.shape[:2], 255, np.uint8)
    a = cv2.warpPerspective(a_src, Hr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = a.astype(np.float32) * (1 / 255)
    roi = out[y0:y1, x0:x1]
    out[y0:y1, x0:x1] = cv2.blendLinear(warped, roi, a, 1.0 - a)
    return out


SKIN_TONES = [(255, 220, 190), (235, 190, 160), (210, 160, 125), (170, 120, 85), (120, 80, 55), (90, 60, 45)]


def _thumb(img: np.ndarray, quad: np.ndarray, rng) -> None:
    """A thumb holding the document by its left or right edge (drawn in place)."""
    edge = (3, 0) if rng.random() < 0.5 else (1, 2)  # document-left or document-right edge
    a, b = quad[edge[0]], quad[edge[1]]
    t = rng.uniform(0.25, 0.75)
    p = a + (b - a) * t
    along = (b - a) / (np.linalg.norm(b - a) + 1e-6)
    inward = (quad.mean(0) - p)
    inward /= np.linalg.norm(inward) + 1e-6
    size = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])) * rng.uniform(0.07, 0.12)
    centre = p + inward * size * rng.uniform(0.1, 0.6)
    angle = float(np.degrees(np.arctan2(along[1], along[0])))
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    axes = (int(size * 1.5), int(size * 0.8))
    c = (int(centre[0]), int(centre[1]))
    # the rest of the hand continues outward, beyond the document edge
    out = p - inward * size * 2.5
    cv2.line(img, c, (int(out[0]), int(out[1])), tuple(int(v * 0.92) for v in skin), int(size * 1.3))
    cv2.ellipse(img, c, axes, angle, 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(img, c, axes, angle, 0, 360, tuple(int(v * 0.75) for v in skin), 2, cv2.LINE_AA)
    nail = centre + inward * size * 0.6
    cv2.ellipse(img, (int(nail[0]), int(nail[1])), (int(size * 0.45), int(size * 0.35)), angle, 0, 360,
                tuple(min(255, int(v * 1.08) + 10) for v in skin), -1, cv2.LINE_AA)


def bend(image: np.ndarray, rng, amplitude: float) -> np.ndarray:
    """Curve a flat page (a booklet page bulging near the fold); the four corners do not move.

    ``amplitude``: largest displacement as a fraction of the image height.
    """
    h, w = image.shape[:2]
    sh, sw = max(4, h // 16), max(4, w // 16)
    v, u = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u /= sw - 1
    v /= sh - 1
    bump = np.sin(np.pi * u) * np.sin(np.pi * v)
    ph = rng.uniform(0.5, 2.0)
    dy = amplitude * h * bump * np.cos(np.pi * u * ph)
    dx = 0.3 * amplitude * w * bump * np.sin(np.pi * v * ph)
    map_x = cv2.resize(u * (w - 1) + dx, (w, h), interpolation=cv2.INTER_LINEAR)
    map_y = cv2.resize(v * (h - 1) + dy, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def jpeg_roundtrip(img: np.ndarray, quality: int) -> np.ndarray:
    """Encode and decode as JPEG (RGB in, RGB out)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def sensor(img: np.ndarray, rng, style: str, info: dict, clean: bool = False) -> np.ndarray:
    """uint8 in, uint8 out: light field, glare, blur, sensor noise, JPEG (OpenCV ops; numpy floats are slow).

    ``clean``: a good capture (even light, in focus, little noise), the control for the defects of
    :mod:`docauth.synth.defects`."""
    h, w = img.shape[:2]
    sh, sw = max(4, h // 8), max(4, w // 8)
    if clean:
        gain = np.full((sh, sw), rng.uniform(0.9, 1.05), np.float32)
        wb = rng.uniform(0.95, 1.05, size=3).astype(np.float32)
        add = None
        info["glare"] = False
        blur = float(rng.uniform(0, 0.5))
        motion = 0
        noise = float(rng.uniform(0.5, 3))
        quality = int(rng.integers(80, 96))
    elif style == "phone":
        g = rng.uniform(0.55, 1.15, size=(3, 3)).astype(np.float32)
        gain = cv2.resize(g, (sw, sh), interpolation=cv2.INTER_CUBIC).clip(0.45, 1.25)
        if rng.random() < 0.2:  # the photographer's (phone, hand) shadow across part of the frame
            poly = (rng.uniform(-0.2, 1.2, size=(5, 2)) * [sw, sh]).astype(np.int32)
            m = np.zeros((sh, sw), np.float32)
            cv2.fillPoly(m, [poly], 1.0)
            k = int(min(sh, sw) * 0.15) | 1
            m = cv2.GaussianBlur(m, (k, k), 0)
            gain = gain * (1 - rng.uniform(0.2, 0.45) * m)
            info["cast_shadow"] = True
        wb = rng.uniform(0.9, 1.1, size=3).astype(np.float32)  # white balance
        add = None
        if rng.random() < 0.35:
            cx, cy = rng.uniform(0.1, 0.9) * sw, rng.uniform(0.1, 0.9) * sh
            r = rng.uniform(0.04, 0.2) * min(sh, sw)
            ry = r * rng.uniform(0.4, 1)
            yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
            add = np.exp(-(((xx - cx) ** 2) / (2 * r * r) + ((yy - cy) ** 2) / (2 * ry * ry))) * rng.uniform(80, 240)
            info["glare"] = True
        else:
            info["glare"] = False
        blur = float(rng.choice([0, 0, rng.uniform(0.3, 1.2), rng.uniform(1.2, 2.5)]))
        motion = int(rng.integers(3, 12)) if rng.random() < 0.12 else 0
        noise = float(rng.uniform(1.5, 9))
        quality = int(rng.integers(40, 96))
    else:
        gain = np.full((sh, sw), rng.uniform(0.96, 1.03), np.float32)
        wb = np.ones(3, np.float32)
        add = None
        blur = float(rng.uniform(0, 0.8))
        motion = 0
        noise = float(rng.uniform(0.5, 3))
        quality = int(rng.integers(60, 96))
    # gains as uint8 fixed point (x128): uint8 resize and multiply are several times faster than float32
    gain3 = np.clip(gain[..., None] * wb[None, None, :] * 128, 0, 255).astype(np.uint8)
    img = cv2.multiply(img, cv2.resize(gain3, (w, h), interpolation=cv2.INTER_LINEAR), scale=1 / 128)
    if add is not None:
        a = cv2.resize(np.clip(add, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
        img = cv2.add(img, cv2.cvtColor(a, cv2.COLOR_GRAY2RGB))
    if blur > 0.25:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if motion:
        k = np.zeros((motion, motion), np.float32)
        k[motion // 2] = 1.0 / motion
        rot = cv2.getRotationMatrix2D((motion / 2 - 0.5, motion / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, rot, (motion, motion))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    n = rng.standard_normal((h // 2 + 1, w // 2 + 1), dtype=np.float32) * noise
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_NEAREST)
    img = cv2.add(img, cv2.cvtColor(n, cv2.COLOR_GRAY2RGB), dtype=cv2.CV_8U)
    grey = rng.random() < (0.12 if style == "scan" else 0.03)  # black-and-white scans, mono camera modes
    if grey:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
    info["greyscale"] = bool(grey)
    img = jpeg_roundtrip(img, quality)
    info.update({"blur_sigma": round(blur, 2), "motion_blur_px": motion, "noise_sigma": round(noise, 2),
                 "jpeg_quality": quality})
    return np.ascontiguousarray(img)


def capture_document(image: np.ndarray, rng: np.random.Generator, style: str = "phone", rotation: int | None = None,
                     mask: np.ndarray | None = None, fill_range: tuple[float, float] | None = None,
                     thumb_p: float = 0.0, bend_amplitude: float = 0.0, clean: bool = False) -> CaptureResult:
    """Full capture with the homography and parameters (see :func:`capture` for the short form).

    ``mask``: optional uint8 alpha of the flat image (rounded card corners show the background).
    ``fill_range``: how much of the frame the document's bounding box spans (phone and bed scans).
    ``thumb_p``: probability that a thumb holds the document at its left or right edge (phone only).
    ``bend_amplitude``: curve the page (fraction of its height, see :func:`bend`); corners stay exact.
    ``clean``: even light, in focus, little noise (see :func:`sensor`).
    """
    if style not in ("phone", "scan"):
        raise ValueError(f"style must be 'phone' or 'scan', not {style!r}")
    rotation = capture_rotation(rng, rotation)
    h, w = image.shape[:2]
    info: dict = {"style": style, "rotation": rotation}
    if style == "phone":
        long_side = int(rng.integers(1280, 2049))  # what capture apps upload (1-3 MP), not a thumbnail
        aspect = float(rng.choice([4 / 3, 16 / 9, 3 / 2]))
        doc_is_wide = (w >= h) == (rotation in (0, 180))
        portrait_frame = rng.random() < (0.2 if doc_is_wide else 0.8)
        fw, fh = (long_side, int(long_side / aspect))
        if portrait_frame:
            fw, fh = fh, fw
        tilt = float(rng.normal(0, 6))
        fill = float(rng.uniform(*(fill_range or (0.72, 0.97))))
        jitter = float(rng.uniform(0, 0.07))
        bg, kind = scenes.surface(rng, fh, fw)
        info["background"] = kind
        quad, scale = _place(w, h, rotation + tilt, jitter, fw, fh, fill, rng, margin=0.015)
        shadow = float(rng.uniform(0.15, 0.5)) if rng.random() < 0.7 else 0.0
    else:
        variant = "tight" if rng.random() < 0.35 else "bed"
        tilt = float(rng.normal(0, 1.2))
        jitter = 0.0
        if variant == "bed":
            long_side = int(rng.integers(1400, 2201))  # the bed region at ~150-200 dpi
            fh, fw = long_side, int(long_side / 1.414)
            if rotation in (90, 270) and rng.random() < 0.5:
                fw, fh = fh, fw  # landscape scan of a sideways document
            # a preview-cropped scan area: the document spans 40-80% of the scanned region
            fill = float(rng.uniform(*(fill_range or (0.45, 0.85))))
            anchor = (float(rng.random() < 0.3), float(rng.random() < 0.2)) if rng.random() < 0.8 else None
            grey = rng.uniform(200, 250) * rng.uniform(0.98, 1.02, size=3)
            bg = np.empty((fh, fw, 3), np.uint8)
            bg[:] = np.clip(grey, 0, 255).astype(np.uint8)
            if rng.random() < 0.15:  # the lid's dark edge
                e = int(fh * rng.uniform(0.01, 0.04))
                bg[:e] = bg[:e] // 5
            quad, scale = _place(w, h, rotation + tilt, 0.0, fw, fh, fill, rng, anchor=anchor, margin=0.01)
        else:
            rot_w, rot_h = (w, h) if rotation in (0, 180) else (h, w)
            margin = rng.uniform(0.01, 0.06)
            long_side = int(rng.integers(900, 1501))  # a cropped card or page at ~250-300 dpi
            s = long_side / max(rot_w, rot_h)
            fw, fh = int(rot_w * s * (1 + 2 * margin)), int(rot_h * s * (1 + 2 * margin))
            bg = np.full((fh, fw, 3), int(rng.uniform(235, 256)), np.uint8)
            fill = 1 / (1 + 2 * margin) * 0.99
            tilt = float(rng.normal(0, 0.5))
            quad, scale = _place(w, h, rotation + tilt, 0.0, fw, fh, fill, rng, margin=0.003)
        info["variant"] = variant
        info["background"] = "scanner_bed"
        shadow = float(rng.uniform(0.05, 0.2)) if rng.random() < 0.5 else 0.0
    # shrink the flat document first so the warp does not alias
    if scale < 0.9:
        small = cv2.resize(image, (max(2, int(w * scale * 1.1)), max(2, int(h * scale * 1.1))),
                           interpolation=cv2.INTER_AREA)
        m_small = None if mask is None else cv2.resize(mask, small.shape[1::-1], interpolation=cv2.INTER_AREA)
    else:
        small, m_small = image, mask
    if bend_amplitude > 0:  # curve the page after shrinking it: the remap is then cheap
        small = bend(small, rng, bend_amplitude)
        info["bend"] = round(float(bend_amplitude), 4)
    sh_, sw_ = small.shape[:2]
    src = np.float32([[0, 0], [sw_, 0], [sw_, sh_], [0, sh_]])
    H_small = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    out = composite(bg, small, m_small, H_small, quad, shadow, rng)
    if style == "phone" and thumb_p > 0 and rng.random() < thumb_p:
        _thumb(out, quad, rng)
        info["thumb"] = True
    # flat-image pixel -> output pixel
    to_small = np.diag([sw_ / w, sh_ / h, 1.0])
    H = H_small.astype(np.float64) @ to_small
    out = sensor(out, rng, style, info, clean=clean)
    info["tilt_deg"] = round(tilt, 2)
    area = 0.5 * abs(np.dot(quad[:, 0], np.roll(quad[:, 1], 1)) - np.dot(quad[:, 1], np.roll(quad[:, 0], 1)))
    info["document_area_fraction"] = round(float(area / (fw * fh)), 3)
    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in quad]
    return CaptureResult(out, corners, H, info)


def capture(image: np.ndarray, rng: np.random.Generator, style: str = "phone", rotation: int | None = None
            ) -> tuple[np.ndarray, list]:
    """Photograph (``phone``) or scan (``scan``) a flat document image -> (captured RGB uint8, corners)."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    result = capture_document(image, rng, style=style, rotation=rotation)
    return result.image, result.corners
