"""Images in a question: the four formats both providers accept, and their size in pixels.

The size is read from the file's header (the token rule for images counts pixels);
``data`` that does not begin like its media type is refused, as both providers refuse it.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass, field

from .checks import InvalidTurn

# The formats both providers accept, and how each file begins.
IMAGE_SIGNATURES = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),  # then 4 bytes of size and "WEBP"
}


def image_size(media_type: str, data: bytes) -> tuple[int, int]:
    """The (width, height) in pixels that the header of ``data`` gives; InvalidTurn if
    ``data`` is not an image of ``media_type`` or its header is cut short."""
    if not data.startswith(IMAGE_SIGNATURES[media_type]) or (
            media_type == "image/webp" and data[8:12] != b"WEBP"):
        raise InvalidTurn(f"image data ({len(data)} bytes) does not begin like {media_type}")
    try:
        width, height = _READERS[media_type](data)
    except (struct.error, IndexError, ValueError):
        width = height = 0
    if width < 1 or height < 1:
        raise InvalidTurn(f"{media_type} header of {len(data)} bytes gives no width and height")
    return width, height


def _png_size(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR":
        raise ValueError("no IHDR chunk first")
    return struct.unpack(">II", data[16:24])


def _gif_size(data: bytes) -> tuple[int, int]:
    return struct.unpack("<HH", data[6:10])


def _jpeg_size(data: bytes) -> tuple[int, int]:
    # Walk the segments to the first start-of-frame marker (C0-CF but C4, C8, CC).
    offset = 2
    while offset + 4 <= len(data):
        if data[offset] != 0xFF:
            raise ValueError("not at a marker")
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            offset += 2
            continue
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[offset + 5:offset + 9])
            return width, height
        offset += 2 + length
    raise ValueError("no frame header")


# How many bytes each WebP chunk's header needs before its sizes can be read.
_WEBP_HEADER = {b"VP8 ": 30, b"VP8L": 25, b"VP8X": 30}


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if len(data) < _WEBP_HEADER.get(chunk, 0):
        raise ValueError("header cut short")
    if chunk == b"VP8 ":  # lossy: a key frame's 14-bit sizes after its start code
        if data[23:26] != b"\x9d\x01\x2a":
            raise ValueError("no VP8 start code")
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14-bit sizes minus one, packed after a 0x2F byte
        if data[20] != 0x2F:
            raise ValueError("no VP8L signature")
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: the canvas's 24-bit sizes minus one
        return (int.from_bytes(data[24:27], "little") + 1,
                int.from_bytes(data[27:30], "little") + 1)
    raise ValueError("unknown WebP chunk")


_READERS = {"image/png": _png_size, "image/gif": _gif_size,
            "image/jpeg": _jpeg_size, "image/webp": _webp_size}


@dataclass(frozen=True)
class Image:
    """An image in a user's question: its media type and its raw bytes.

    On the wire it travels as base64 (4 bytes for every 3), in a data URL for
    OpenAI and a base64 source for Anthropic. ``width`` and ``height`` come from its
    header: the token rule for images counts pixels, not bytes.
    """

    media_type: str
    data: bytes
    width: int = field(init=False, compare=False)
    height: int = field(init=False, compare=False)
    base64: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.media_type not in IMAGE_SIGNATURES:
            known = ", ".join(IMAGE_SIGNATURES)
            raise InvalidTurn(f"media_type must be one of {known}")
        if not isinstance(self.data, bytes):
            raise TypeError(f"image data must be bytes, not {type(self.data).__name__}")
        width, height = image_size(self.media_type, self.data)
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "height", height)
        object.__setattr__(self, "base64", base64.b64encode(self.data).decode("ascii"))

    def __repr__(self) -> str:
        return (f"Image({self.media_type}, {self.width}x{self.height}, "
                f"{len(self.data)} bytes, {len(self.base64)} in base64)")
