"""What people upload instead of an identity document: selfies, scenery, real photographs, printed pages,
screenshots, blank or blurred frames, and other cards (payment, business) that are NOT identity documents."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d, photos, scenes
from docauth.synth.capture import capture_document, jpeg_roundtrip, sensor
from docauth.synth.crop import crop_capture
from docauth.synth.identity import CITIES, GIVEN_F, GIVEN_M, STREETS, SURNAMES
from docauth.synth.portrait import draw_head_and_shoulders, face_params, portrait_image

WORDS = ("the of and to in is for that with on as this be by are from at or we an will your our have not please "
         "invoice payment account order delivery service customer total amount due date reference number thank "
         "you regards meeting report project quarterly summary contract agreement terms conditions section page "
         "information available request confirm attached document schedule office team update balance statement "
         "product quantity price description item shipping address phone email website support policy").split()


def _frame_size(rng, portrait_p: float = 0.5) -> tuple[int, int]:
    long_side = int(rng.integers(1280, 2049))  # phone photos as capture apps upload them
    aspect = float(rng.choice([4 / 3, 16 / 9, 3 / 2]))
    w, h = long_side, int(long_side / aspect)
    return (h, w) if rng.random() < portrait_p else (w, h)


def _sentence(rng, n: int) -> str:
    return " ".join(d.pick(rng, WORDS) for _ in range(n))


def _room(rng, h: int, w: int) -> Image.Image:
    """Indoor background: wall, door or window, shelf, picture frame."""
    wall = d.hsv(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.55, 0.95))
    img = Image.fromarray(d.gradient(h, w, wall, d.darker(wall, rng.uniform(0.6, 0.95)), rng.uniform(0, 6.3)))
    dr = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(1, 4))):
        x, y = rng.uniform(-0.2, 0.9) * w, rng.uniform(-0.2, 0.6) * h
        bw, bh = rng.uniform(0.15, 0.5) * w, rng.uniform(0.2, 0.8) * h
        kind = rng.random()
        if kind < 0.4:  # window: bright with frame bars
            sky = d.hsv(rng.uniform(0.52, 0.62), rng.uniform(0.1, 0.5), rng.uniform(0.8, 1))
            dr.rectangle([x, y, x + bw, y + bh], fill=sky, outline=(240, 240, 240), width=int(w * 0.012) + 1)
            dr.line([(x + bw / 2, y), (x + bw / 2, y + bh)], fill=(240, 240, 240), width=int(w * 0.008) + 1)
        elif kind < 0.7:  # door / cupboard
            dr.rectangle([x, y, x + bw * 0.6, h], fill=d.hsv(rng.uniform(0.05, 0.12), 0.4, rng.uniform(0.3, 0.8)))
        else:  # picture frame / shelf
            dr.rectangle([x, y, x + bw * 0.5, y + bh * 0.4], fill=d.hsv(rng.random(), 0.5, 0.6),
                         outline=(60, 40, 30), width=int(w * 0.01) + 1)
    return img


def selfie(rng) -> tuple[np.ndarray, dict]:
    w, h = _frame_size(rng, portrait_p=0.75)
    if rng.random() < 0.15:  # the one real face photo we may use (scikit-image's astronaut)
        from docauth.synth import photos

        real = photos.face_view(rng, h, w)
        if real is not None:
            info = {"style": "phone", "rotation": 0}
            return sensor(real, rng, "phone", info), {"identity": photos.REAL_FACE_IDENTITY,
                                                      "variant": "selfie_photo", "capture": info}
    identity = f"p{int(rng.integers(0, 1 << 31)):08x}"
    small = 2  # draw at half size, upscale (a phone photo is soft anyway)
    sw, sh = w // small, h // small
    if rng.random() < 0.7:
        img = _room(rng, sh, sw)
    else:
        img = Image.fromarray(scenes.surface(rng, sh, sw, d.pick(rng, ["stone", "table", "fabric"]))[0])
    dr = ImageDraw.Draw(img)
    fw = sw * rng.uniform(0.55, 0.95)
    fh = fw * rng.uniform(1.1, 1.35)
    x0 = rng.uniform(-0.1, 0.5) * sw - (fw - sw * 0.6) / 2
    y0 = sh * rng.uniform(0.05, 0.35)
    draw_head_and_shoulders(dr, face_params(identity), (x0, y0, x0 + fw, y0 + fh), smile=rng.uniform(0, 1))
    hand = rng.random() < 0.35
    if hand:  # an arm / hand reaching into the frame
        p = face_params(identity)
        hx, hy = rng.uniform(0.0, 0.8) * sw, sh * rng.uniform(0.65, 0.85)
        r = sw * rng.uniform(0.08, 0.14)
        dr.ellipse([hx, hy, hx + r * 1.6, hy + r * 1.9], fill=p["skin"])
        for k in range(4):
            fx = hx + k * r * 0.4
            dr.rounded_rectangle([fx, hy - r * 0.9, fx + r * 0.34, hy + r * 0.4], radius=int(r * 0.15),
                                 fill=d.darker(p["skin"], 0.95))
        dr.rectangle([hx + r * 0.2, min(hy + r * 1.6, sh - 1), hx + r * 1.4, sh], fill=p["skin"])
    arr = cv2.resize(np.asarray(img), (w, h), interpolation=cv2.INTER_LINEAR)
    info = {"style": "phone", "rotation": 0}
    if rng.random() < 0.4:
        arr = cv2.GaussianBlur(arr, (0, 0), rng.uniform(1, 4))  # portrait-mode background blur (cheap stand-in)
    arr = sensor(arr, rng, "phone", info)
    return arr, {"identity": identity, "variant": "selfie_hand" if hand else "selfie", "capture": info}


def scenery(rng) -> tuple[np.ndarray, dict]:
    w, h = _frame_size(rng, portrait_p=0.3)
    sw, sh = w // 2, h // 2
    kind = rng.random()
    info = {"style": "phone", "rotation": 0}
    if kind < 0.35:  # a real photograph
        from docauth.synth import photos

        view = photos.random_view(rng, photos.SCENES + photos.TEXTURES, h, w)
        if view is not None:
            return sensor(view[0], rng, "phone", info), {"variant": "photo_" + view[1].split(".")[0],
                                                        "capture": info}
        kind = 0.5
    if kind < 0.65:
        sky0 = d.hsv(rng.uniform(0.53, 0.64), rng.uniform(0.3, 0.8), rng.uniform(0.7, 1))
        sky1 = d.hsv(rng.uniform(0.0, 0.15) if rng.random() < 0.3 else 0.58, rng.uniform(0, 0.4), rng.uniform(0.8, 1))
        img = Image.fromarray(d.gradient(sh, sw, sky0, sky1, np.pi / 2 + rng.normal(0, 0.1)))
        dr = ImageDraw.Draw(img)
        if rng.random() < 0.3:
            sx, sy, r = rng.uniform(0, sw), rng.uniform(0, sh * 0.4), sw * rng.uniform(0.02, 0.06)
            dr.ellipse([sx - r, sy - r, sx + r, sy + r], fill=(255, 245, 200))
        horizon = sh * rng.uniform(0.4, 0.75)
        for layer in range(int(rng.integers(1, 4))):  # mountain ridges, far to near
            col = d.hsv(rng.uniform(0.25, 0.65), rng.uniform(0.2, 0.6), rng.uniform(0.25, 0.7) - layer * 0.08)
            xs = np.linspace(0, sw, 40)
            ys = horizon - sh * rng.uniform(0.05, 0.3) + np.cumsum(rng.normal(0, sh * 0.02, 40)) + layer * sh * 0.06
            dr.polygon(list(zip(xs.tolist(), ys.tolist())) + [(sw, sh), (0, sh)], fill=col)
        ground = d.hsv(rng.uniform(0.08, 0.35), rng.uniform(0.3, 0.8), rng.uniform(0.3, 0.7))
        dr.rectangle([0, horizon + sh * 0.12, sw, sh], fill=ground)
        if rng.random() < 0.5:  # trees or buildings
            for _ in range(int(rng.integers(3, 15))):
                tx, base = rng.uniform(0, sw), horizon + sh * rng.uniform(0.1, 0.3)
                th = sh * rng.uniform(0.08, 0.3)
                if rng.random() < 0.6:
                    dr.polygon([(tx, base - th), (tx - th * 0.3, base), (tx + th * 0.3, base)],
                               fill=d.hsv(0.33, 0.6, rng.uniform(0.2, 0.5)))
                else:
                    dr.rectangle([tx, base - th, tx + th * 0.5, base], fill=d.hsv(rng.random(), 0.2, 0.6))
                    for wy in np.arange(base - th + 6, base - 6, 10):
                        dr.rectangle([tx + 3, wy, tx + th * 0.5 - 3, wy + 4], fill=(230, 230, 160))
        arr = np.asarray(img)
        variant = "landscape"
    else:
        tex = d.pick(rng, ["bricks", "grass", "water", "noise"] + list(scenes.SURFACES))
        variant = f"texture_{tex}"
        if tex == "bricks":
            mortar = d.hsv(0.1, 0.1, rng.uniform(0.6, 0.85))
            img = Image.new("RGB", (sw, sh), mortar)
            dr = ImageDraw.Draw(img)
            bh = sh * rng.uniform(0.04, 0.1)
            bw = bh * rng.uniform(2, 3)
            for row, y in enumerate(np.arange(0, sh, bh)):
                for x in np.arange(-bw * (row % 2) / 2, sw, bw):
                    dr.rectangle([x + 2, y + 2, x + bw - 2, y + bh - 2],
                                 fill=d.hsv(rng.uniform(0.0, 0.07), rng.uniform(0.4, 0.7), rng.uniform(0.35, 0.65)))
            arr = np.asarray(img)
        elif tex in ("grass", "water", "noise"):
            hue = {"grass": 0.3, "water": 0.55, "noise": rng.random()}[tex]
            base = np.array(d.hsv(hue, rng.uniform(0.3, 0.8), rng.uniform(0.3, 0.8)), np.float32)
            n = rng.random((sh, sw)).astype(np.float32)
            if tex == "water":
                n = cv2.GaussianBlur(n, (0, 0), 3)
                n = (n - n.min()) / (n.max() - n.min() + 1e-6)
            arr = np.clip(base[None, None] * (0.6 + 0.7 * n[..., None]), 0, 255).astype(np.uint8)
        else:
            arr = scenes.surface(rng, sh, sw, tex)[0]
    arr = cv2.resize(arr, (w, h), interpolation=cv2.INTER_LINEAR)
    arr = sensor(arr, rng, "phone", info)
    return arr, {"variant": variant, "capture": info}


def _page(rng) -> tuple[np.ndarray, str]:
    """A printed A4 page: letter, invoice, report or monospaced listing."""
    w, h = 880, 1244
    paper = tuple(int(v) for v in rng.uniform(238, 255, 3))
    img = Image.new("RGB", (w, h), paper)
    dr = ImageDraw.Draw(img)
    kind = d.pick(rng, ["letter", "invoice", "report", "mono", "cv"])
    reg, bold = d.pick(rng, d.VIZ_FAMILIES[:6])
    if kind == "mono":
        reg, bold = d.MONO, d.MONO_BOLD
    ink = (int(rng.uniform(0, 50)),) * 3
    accent = d.hsv(rng.random(), rng.uniform(0.4, 0.9), rng.uniform(0.3, 0.7))
    m = w * 0.09
    # letterhead with a logo
    if rng.random() < 0.8:
        d.emblem(dr, rng, (m + 30, m + 25), 28, accent)
        company = " ".join(d.pick(rng, WORDS).capitalize() for _ in range(2)) + d.pick(rng, [" GmbH", " Ltd", " SA",
                                                                                           " Inc.", " AB", ""])
        dr.text((m + 75, m + 5), company, font=d.font(bold, 30), fill=accent)
        dr.text((m + 75, m + 42), f"{d.pick(rng, STREETS).title()} {int(rng.integers(1, 99))}, "
                                  f"{d.pick(rng, CITIES).title()}", font=d.font(reg, 16), fill=(90, 90, 90))
    y = m + 110
    fs = int(rng.uniform(15, 20))
    f, fb = d.font(reg, fs), d.font(bold, fs)
    name = f"{d.pick(rng, GIVEN_F + GIVEN_M).title()} {d.pick(rng, SURNAMES).title()}"
    if kind in ("letter", "invoice"):
        for line in (name, f"{d.pick(rng, STREETS).title()} {int(rng.integers(1, 200))}",
                     f"{int(rng.integers(1000, 99999))} {d.pick(rng, CITIES).title()}"):
            dr.text((m, y), line, font=f, fill=ink)
            y += fs * 1.4
        date = f"{int(rng.integers(1, 29))}.{int(rng.integers(1, 13)):02d}.{int(rng.integers(2019, 2027))}"
        dr.text((w * 0.62, y), date, font=f, fill=ink)
        y += fs * 3
    if kind == "cv":  # a CV with a photo: a face and a name on paper, still not an identity document
        pw, ph = 170, 215
        img.paste(Image.fromarray(portrait_image(f"p{int(rng.integers(0, 1 << 31)):08x}", pw, ph)),
                  (int(w - m - pw), int(m + 100)))
        dr.text((m, y), name, font=d.font(bold, int(fs * 1.8)), fill=ink)
        y += fs * 3
        for key in ("Date of birth", "Nationality", "Phone", "E-mail"):
            dr.text((m, y), f"{key}: {_sentence(rng, 2)}", font=f, fill=ink)
            y += fs * 1.5
        y = max(y, m + 100 + ph) + fs
    title = {"cv": "Curriculum Vitae",
             "letter": d.pick(rng, ["Re: your request", "Confirmation", "Notice of change", "Dear customer"]),
             "invoice": f"INVOICE No. {int(rng.integers(10000, 999999))}",
             "report": d.pick(rng, ["Quarterly report", "Meeting minutes", "Project summary"]),
             "mono": d.pick(rng, ["TRANSACTION LOG", "ACCOUNT STATEMENT", "SYSTEM REPORT"])}[kind]
    dr.text((m, y), title, font=d.font(bold, int(fs * 1.4)), fill=ink)
    y += fs * 2.8
    if kind == "invoice":
        cols = [m, w * 0.55, w * 0.68, w * 0.8]
        for j, head in enumerate(["Description", "Qty", "Price", "Amount"]):
            dr.text((cols[j], y), head, font=fb, fill=ink)
        y += fs * 1.5
        dr.line([(m, y), (w - m, y)], fill=ink, width=2)
        y += fs * 0.6
        total = 0.0
        for _ in range(int(rng.integers(3, 12))):
            q, p = int(rng.integers(1, 20)), float(rng.uniform(1, 500))
            total += q * p
            for j, val in enumerate([_sentence(rng, 3).capitalize(), str(q), f"{p:.2f}", f"{q * p:.2f}"]):
                dr.text((cols[j], y), val, font=f, fill=ink)
            y += fs * 1.5
            dr.line([(m, y - fs * 0.2), (w - m, y - fs * 0.2)], fill=(200, 200, 200), width=1)
        dr.text((cols[2], y + fs), "TOTAL", font=fb, fill=ink)
        dr.text((cols[3], y + fs), f"{total:.2f}", font=fb, fill=ink)
        y += fs * 4
    while y < h - m - fs * 4:
        if kind == "mono":
            line = (f"{int(rng.integers(2019, 2027))}-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d} "
                    f"{''.join(d.pick(rng, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789') for _ in range(10))} "
                    f"{_sentence(rng, 2).upper():<22} {rng.uniform(-999, 9999):>10.2f}")
            dr.text((m, y), line, font=f, fill=ink)
            y += fs * 1.35
            continue
        for _ in range(int(rng.integers(2, 7))):  # a paragraph
            n = int(rng.integers(8, 14))
            line = _sentence(rng, n).capitalize()
            while f.getlength(line) > w - 2 * m and n > 2:
                n -= 1
                line = _sentence(rng, n).capitalize()
            dr.text((m, y), line, font=f, fill=ink)
            y += fs * 1.45
            if y > h - m - fs * 4:
                break
        y += fs * 1.2
    if kind == "letter":
        d.signature(dr, rng, (m, h - m - fs * 3, m + 220, h - m), color=(20, 30, 120))
    return np.asarray(img), kind


def letter(rng) -> tuple[np.ndarray, dict]:
    page, kind = _page(rng)
    style = "scan" if rng.random() < 0.4 else "phone"
    rotation = 0 if rng.random() < 0.8 else int(rng.choice([90, 180, 270]))
    cap = capture_document(page, rng, style=style, rotation=rotation, fill_range=(0.8, 0.97))
    cap.info["page_corners"] = cap.corners
    return cap.image, {"variant": f"page_{kind}", "capture": cap.info}


def screenshot(rng) -> tuple[np.ndarray, dict]:
    mobile = rng.random() < 0.4
    w, h = (int(rng.integers(640, 800)), 0) if mobile else (int(rng.integers(1024, 1281)), 0)
    h = int(w * (rng.uniform(1.8, 2.2) if mobile else rng.uniform(0.56, 0.75)))
    if mobile:  # phone screenshots are tall; keep the long side within 1280
        s = min(1.0, 1280 / h)
        w, h = int(w * s), int(h * s)
    dark = rng.random() < 0.3
    bg = (32, 33, 36) if dark else (int(rng.uniform(240, 256)),) * 3
    fg = (230, 230, 230) if dark else (30, 30, 30)
    accent = d.hsv(rng.random(), rng.uniform(0.5, 0.9), rng.uniform(0.5, 0.9))
    img = Image.new("RGB", (w, h), bg)
    dr = ImageDraw.Draw(img)
    reg, bold = d.pick(rng, d.VIZ_FAMILIES[:5])
    fs = int(rng.uniform(14, 20)) * (2 if mobile else 1) // (2 if mobile else 1)
    f, fb = d.font(reg, fs), d.font(bold, int(fs * 1.3))
    bar_h = int(h * (0.04 if mobile else 0.06))
    dr.rectangle([0, 0, w, bar_h], fill=accent if rng.random() < 0.5 else d.darker(bg, 0.9))
    dr.text((fs, bar_h * 0.25), d.pick(rng, ["Inbox", "Settings", "Dashboard", "Messages", "Files", "Bank"]),
            font=fb, fill=(255, 255, 255) if rng.random() < 0.5 else fg)
    x0 = 0
    if not mobile and rng.random() < 0.7:  # sidebar
        sbw = int(w * rng.uniform(0.15, 0.25))
        dr.rectangle([0, bar_h, sbw, h], fill=d.darker(bg, 0.93) if not dark else (45, 46, 50))
        for i in range(int(rng.integers(5, 14))):
            dr.text((fs, bar_h + fs + i * fs * 2.2), d.pick(rng, WORDS).capitalize(), font=f, fill=fg)
        x0 = sbw
    y = bar_h + fs * 1.5
    while y < h - fs * 3:
        k = rng.random()
        if k < 0.15:  # button row
            bx = x0 + fs
            for _ in range(int(rng.integers(1, 4))):
                label = d.pick(rng, ["OK", "Cancel", "Submit", "Next", "Upload", "Save", "Sign in"])
                bw = f.getlength(label) + fs * 2
                dr.rounded_rectangle([bx, y, bx + bw, y + fs * 2], radius=fs // 2, fill=accent)
                dr.text((bx + fs, y + fs * 0.4), label, font=f, fill=(255, 255, 255))
                bx += bw + fs
            y += fs * 3
        elif k < 0.3:  # input field
            dr.text((x0 + fs, y), d.pick(rng, WORDS).capitalize(), font=f, fill=fg)
            dr.rounded_rectangle([x0 + fs, y + fs * 1.4, x0 + fs + (w - x0) * 0.5, y + fs * 3.2], radius=4,
                                 outline=(150, 150, 150), width=1)
            y += fs * 4
        elif k < 0.4:  # image placeholder / card
            ih = fs * rng.uniform(4, 10)
            dr.rectangle([x0 + fs, y, x0 + fs + (w - x0) * rng.uniform(0.3, 0.8), y + ih],
                         fill=d.hsv(rng.random(), 0.3, 0.8))
            y += ih + fs
        else:  # text lines
            n = int(rng.integers(3, 9 if mobile else 16))
            line = _sentence(rng, n).capitalize()
            dr.text((x0 + fs, y), line, font=f, fill=fg)
            y += fs * 1.6
    arr = np.asarray(img)
    info = {"style": "screenshot", "rotation": 0}
    q = int(rng.integers(70, 96))
    info["jpeg_quality"] = q
    return jpeg_roundtrip(arr, q), {"variant": "screenshot_mobile" if mobile else "screenshot_desktop",
                                    "capture": info}


def blank(rng) -> tuple[np.ndarray, dict]:
    w, h = _frame_size(rng, portrait_p=0.5)
    k = rng.random()
    info = {"style": "phone", "rotation": 0}
    if k < 0.35:
        col = d.pick(rng, [(0, 0, 0), (255, 255, 255), (128, 128, 128)]) if rng.random() < 0.5 else \
            d.hsv(rng.random(), rng.uniform(0, 0.5), rng.uniform(0.05, 1))
        arr = np.empty((h, w, 3), np.uint8)
        arr[:] = col
        variant = "blank_uniform"
    elif k < 0.5:  # lens covered: dark with a faint glow
        arr = d.gradient(h, w, (5, 5, 5), d.hsv(rng.uniform(0, 0.1), 0.6, rng.uniform(0.1, 0.4)), rng.uniform(0, 6))
        variant = "blank_covered"
    else:  # heavily blurred scene or room
        src, _ = (scenery(rng) if rng.random() < 0.5 else selfie(rng))
        src = cv2.resize(src, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        src = cv2.GaussianBlur(src, (0, 0), rng.uniform(6, 15))
        arr = cv2.resize(src, (w, h), interpolation=cv2.INTER_LINEAR)
        variant = "blank_blurred"
    arr = sensor(arr, rng, "phone", info)
    return arr, {"variant": variant, "capture": info}


def _payment_card(rng) -> np.ndarray:
    w, h = 1012, 638
    c0 = d.hsv(rng.random(), rng.uniform(0.3, 0.9), rng.uniform(0.15, 0.8))
    c1 = d.hsv(rng.random(), rng.uniform(0.3, 0.9), rng.uniform(0.15, 0.8))
    img = Image.fromarray(d.gradient(h, w, c0, c1, rng.uniform(0, 6.3)))
    dr = ImageDraw.Draw(img)
    light = sum(c0) / 3 > 140
    ink = (20, 20, 20) if light else (240, 240, 240)
    if rng.random() < 0.5:
        for _ in range(int(rng.integers(2, 6))):
            cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.2, 0.7) * h
            dr.ellipse([cx - r, cy - r, cx + r, cy + r], outline=d.mix(c0, (255, 255, 255), 0.2), width=int(h * 0.02))
    bank = " ".join(d.pick(rng, WORDS).upper() for _ in range(int(rng.integers(1, 3)))) + d.pick(rng, [" BANK", "",
                                                                                                    " CREDIT"])
    dr.text((w * 0.06, h * 0.07), bank, font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", int(h * 0.07)), fill=ink)
    d.chip(dr, rng, (w * 0.1, h * 0.33, w * 0.1 + w * 0.13, h * 0.33 + h * 0.16))
    if rng.random() < 0.7:  # contactless waves
        for k in range(3):
            r = h * (0.04 + 0.03 * k)
            dr.arc([w * 0.3 - r, h * 0.41 - r, w * 0.3 + r, h * 0.41 + r], -50, 50, fill=ink, width=4)
    number = " ".join("".join(str(int(v)) for v in rng.integers(0, 10, 4)) for _ in range(4))
    nf = d.font(d.pick(rng, [d.OCRB, d.MONO_BOLD, d.FONT_DIR_DEJAVU + "DejaVuSans.ttf"]), int(h * 0.085))
    dr.text((w * 0.08, h * 0.58), number, font=nf, fill=ink)
    dr.text((w * 0.35, h * 0.73), "VALID THRU", font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSans.ttf", int(h * 0.03)),
            fill=ink)
    valid = f"{int(rng.integers(1, 13)):02d}/{int(rng.integers(25, 32))}"
    dr.text((w * 0.5, h * 0.71), valid, font=d.font(d.MONO, int(h * 0.055)), fill=ink)
    holder = f"{d.pick(rng, GIVEN_F + GIVEN_M)} {d.pick(rng, SURNAMES)}"
    dr.text((w * 0.08, h * 0.83), holder, font=d.fit_font(d.MONO, holder, w * 0.6, int(h * 0.06)), fill=ink)
    # brand: overlapping circles or a word
    if rng.random() < 0.5:
        r = h * 0.1
        bx, by = w * 0.8, h * 0.83
        dr.ellipse([bx - r, by - r, bx + r, by + r], fill=(235, 0, 27))
        dr.ellipse([bx + r * 0.6, by - r, bx + r * 2.6, by + r], fill=(247, 158, 27))
    else:
        dr.text((w * 0.72, h * 0.78), d.pick(rng, ["PAYCARD", "NOVA", "ORBIT", "DEBIT"]),
                font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSerif-BoldItalic.ttf", int(h * 0.1)), fill=ink)
    return np.asarray(img)


def _business_card(rng) -> np.ndarray:
    w, h = 1000, 556  # 90 x 50 mm
    bg = (int(rng.uniform(235, 256)),) * 3 if rng.random() < 0.6 else d.pastel(rng)
    img = Image.new("RGB", (w, h), bg)
    dr = ImageDraw.Draw(img)
    accent = d.hsv(rng.random(), rng.uniform(0.5, 0.9), rng.uniform(0.3, 0.7))
    reg, bold = d.pick(rng, d.VIZ_FAMILIES)
    if rng.random() < 0.5:
        dr.rectangle([0, 0, w * rng.uniform(0.03, 0.3), h], fill=accent)
    d.emblem(dr, rng, (w * 0.82, h * 0.22), h * 0.1, accent)
    name = f"{d.pick(rng, GIVEN_F + GIVEN_M).title()} {d.pick(rng, SURNAMES).title()}"
    x = w * 0.35 if rng.random() < 0.3 else w * 0.1
    dr.text((x, h * 0.3), name, font=d.font(bold, int(h * 0.09)), fill=(25, 25, 25))
    dr.text((x, h * 0.43), d.pick(rng, ["Sales Manager", "Software Engineer", "Consultant", "Director", "Architect"]),
            font=d.font(reg, int(h * 0.055)), fill=accent)
    f = d.font(reg, int(h * 0.045))
    lines = [f"+{int(rng.integers(1, 99))} {int(rng.integers(100, 999))} {int(rng.integers(100000, 9999999))}",
             f"{name.split()[0].lower()}@{d.pick(rng, WORDS)}.com",
             f"{d.pick(rng, STREETS).title()} {int(rng.integers(1, 99))}, {d.pick(rng, CITIES).title()}"]
    for i, line in enumerate(lines):
        dr.text((x, h * 0.62 + i * h * 0.08), line, font=f, fill=(60, 60, 60))
    return np.asarray(img)


def _badge(rng) -> np.ndarray:
    """An employee / member badge: portrait-format card with a photo and a name, no MRZ, no state fields."""
    w, h = 638, 1012
    accent = d.hsv(rng.random(), rng.uniform(0.5, 0.9), rng.uniform(0.3, 0.8))
    img = Image.new("RGB", (w, h), (int(rng.uniform(235, 256)),) * 3)
    dr = ImageDraw.Draw(img)
    dr.rectangle([0, 0, w, h * rng.uniform(0.12, 0.22)], fill=accent)
    reg, bold = d.pick(rng, d.VIZ_FAMILIES[:6])
    company = " ".join(d.pick(rng, WORDS).capitalize() for _ in range(2))
    dr.text((w * 0.08, h * 0.04), company, font=d.fit_font(bold, company, w * 0.84, int(h * 0.06)),
            fill=(255, 255, 255))
    pw, ph = int(w * 0.5), int(w * 0.62)
    photo = portrait_image(f"p{int(rng.integers(0, 1 << 31)):08x}", pw, ph)
    img.paste(Image.fromarray(photo), (int((w - pw) / 2), int(h * 0.26)))
    name = f"{d.pick(rng, GIVEN_F + GIVEN_M).title()} {d.pick(rng, SURNAMES).title()}"
    y = h * 0.26 + ph + h * 0.04
    f = d.fit_font(bold, name, w * 0.9, int(h * 0.05))
    dr.text(((w - f.getlength(name)) / 2, y), name, font=f, fill=(20, 20, 20))
    role = d.pick(rng, ["VISITOR", "STAFF", "MEMBER", "STUDENT", "CONTRACTOR", "ENGINEERING"])
    f2 = d.font(reg, int(h * 0.035))
    dr.text(((w - f2.getlength(role)) / 2, y + h * 0.07), role, font=f2, fill=accent)
    d.barcode(dr, rng, (w * 0.15, h * 0.88, w * 0.85, h * 0.95))
    return np.asarray(img)


def _flat_card(rng, payment_share: float) -> tuple[np.ndarray, str]:
    """A payment card (probability ``payment_share``), else a business card (up to 0.75), else a badge."""
    k = rng.random()
    if k < payment_share:
        return _payment_card(rng), "payment_card"
    if k < 0.75:
        return _business_card(rng), "business_card"
    return _badge(rng), "badge"


def card(rng) -> tuple[np.ndarray, dict]:
    """A payment, member or business card: card-shaped, may carry a chip or a photo, not an identity document."""
    flat, variant = _flat_card(rng, payment_share=0.5)
    style = "scan" if rng.random() < 0.25 else "phone"
    mask = d.rounded_mask(flat.shape[0], flat.shape[1], int(flat.shape[0] * 0.06))
    cap = capture_document(flat, rng, style=style, mask=mask, thumb_p=0.15)
    cap.info["card_corners"] = cap.corners
    return cap.image, {"variant": variant, "capture": cap.info}


def photo(rng) -> tuple[np.ndarray, dict]:
    """A real photograph uploaded as it is (from the gallery, not taken of a document): a person or a scene.

    The sources are scikit-image's bundled photos: the astronaut portrait, the LFW face crops (25 px,
    upscaled: a soft, low-resolution portrait) and its scenes. Framing, colour grading, a black letterbox
    (video stills), blur and JPEG vary. ``identity`` is set for the astronaut.
    """
    w, h = _frame_size(rng, portrait_p=0.5)
    info = {"style": "photo", "rotation": 0}
    kind = rng.random()
    identity, img = None, None
    faces = photos.lfw_faces()
    if kind < 0.25:
        img = photos.face_view(rng, h, w)
        if img is not None:
            identity, variant = photos.REAL_FACE_IDENTITY, "photo_astronaut"
    elif kind < 0.5 and len(faces):
        face = faces[int(rng.integers(len(faces)))]
        x0, y0 = int(rng.integers(0, 5)), int(rng.integers(0, 5))
        crop = face[y0:y0 + int(rng.integers(19, 25 - y0 + 1)), x0:x0 + int(rng.integers(19, 25 - x0 + 1))]
        img = cv2.resize(cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_GRAY2RGB), (w, h),
                         interpolation=cv2.INTER_CUBIC)
        if rng.random() < 0.7:  # tint the grey face (colour cast, sepia)
            img = photos.channel_gain(img, rng.uniform(0.7, 1.25, size=3))
        variant = "photo_face"
    if img is None:
        view = photos.random_view(rng, photos.SCENES + photos.TEXTURES + ("horse.png",), h, w, min_crop=0.3)
        if view is None:  # scikit-image missing: a drawn scene instead
            return scenery(rng)
        img, variant = view[0], "photo_" + view[1].split(".")[0]
    img = cv2.convertScaleAbs(img, alpha=float(rng.uniform(0.75, 1.25)), beta=float(rng.uniform(-25, 25)))
    if rng.random() < 0.2:  # a video still: black bars left and right
        bar = int(w * rng.uniform(0.1, 0.25))
        small = cv2.resize(img, (w - 2 * bar, h), interpolation=cv2.INTER_AREA)
        img = cv2.copyMakeBorder(small, 0, 0, bar, bar, cv2.BORDER_CONSTANT, value=(0, 0, 0))
        variant += "_letterboxed"
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.5, 2.0)))
    quality = int(rng.integers(55, 96))
    info["jpeg_quality"] = quality
    return jpeg_roundtrip(img, quality), {"identity": identity, "variant": variant, "capture": info}


def card_crop(rng) -> tuple[np.ndarray, dict]:
    """A payment, business or member card cropped tightly (like ``doc_crop`` documents): not a document."""
    flat, variant = _flat_card(rng, payment_share=0.45)
    mask = d.rounded_mask(flat.shape[0], flat.shape[1], int(min(flat.shape[:2]) * 0.06))
    cap = crop_capture(flat, rng, mask=mask)
    cap.info["card_corners"] = cap.corners
    return cap.image, {"variant": variant, "capture": cap.info}


NONDOC_RENDERERS = {"selfie": selfie, "scenery": scenery, "letter": letter, "screenshot": screenshot,
                    "blank": blank, "card": card, "photo": photo, "card_crop": card_crop}
