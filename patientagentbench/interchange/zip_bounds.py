"""Bounds on a zip before anything in it is unpacked (an Inspect `.eval` log is a zip).

A small zip can unpack to gigabytes, and Inspect reads every member whole into memory. So the
zip's own central directory is read first, the way Inspect's reader reads it (the end record,
its ZIP64 form, the entries up to the first that is not one), and the number of members and
their declared sizes, each and in total, are checked against `ZipBounds`. Then each member is
unpacked as a stream, from the bytes Inspect would unpack, and refused the moment it grows
past its declared size: a member that lies about its size costs one chunk of memory, not the
lie. Pure: no Django; `zstandard` comes with the inspect extra.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from patientagentbench.interchange.schema import FormatError

MB = 1024 * 1024
CHUNK = MB  # the most a member holds in memory at once while it is measured
STORED, DEFLATED, ZSTANDARD = 0, 8, 93
_END, _END64, _LOCATOR64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
_ENTRY, _LOCAL = b"PK\x01\x02", b"PK\x03\x04"
_END_SIZE, _MAX_COMMENT = 22, 65535
_ZIP64_SENTINEL = 0xFFFFFFFF


class ZipBoundsError(FormatError):
    """A zip over a bound, or one whose directory does not tell the truth; one line."""


@dataclass(frozen=True)
class ZipBounds:
    total_bytes: int  # all members unpacked together
    member_bytes: int  # any one member unpacked
    members: int  # entries in the central directory
    setting_total: str = ""  # the settings that raise a bound, named in the refusal
    setting_member: str = ""


@dataclass(frozen=True)
class Member:
    name: str
    method: int
    packed: int
    size: int  # the unpacked size the directory declares
    header_at: int


def check_zip(raw: bytes, bounds: ZipBounds) -> None:
    """Refuse (ZipBoundsError) a zip over `bounds` or lying about its sizes; unpacks nothing
    whole."""
    members = list(_directory(raw, bounds.members))
    _check_declared(members, bounds)
    for member in members:
        _check_unpacked(raw, member)


def _check_declared(members: list[Member], bounds: ZipBounds) -> None:
    for member in members:
        if member.size > bounds.member_bytes:
            raise ZipBoundsError(
                f"zip member {member.name[:80]!r} unpacks to {member.size / MB:,.1f} MB, over "
                f"the {bounds.member_bytes / MB:,.0f} MB one member may hold"
                + _raise_with(bounds.setting_member)
            )
    total = sum(member.size for member in members)
    if total > bounds.total_bytes:
        raise ZipBoundsError(
            f"the zip unpacks to {total / MB:,.1f} MB, over the {bounds.total_bytes / MB:,.0f} MB "
            "an import may unpack" + _raise_with(bounds.setting_total)
        )


def _raise_with(setting: str) -> str:
    return f" ({setting})" if setting else ""


# --- the central directory, read as Inspect's reader reads it ----------------------------------


def _directory(raw: bytes, most: int) -> Iterator[Member]:
    offset, size = _directory_span(raw)
    if offset + size > len(raw):
        raise ZipBoundsError("the zip's central directory lies past the end of the file")
    pos, end, count = offset, offset + size, 0
    while pos + 46 <= end and raw[pos : pos + 4] == _ENTRY:
        count += 1
        if count > most:  # counted before the entry is kept: a huge directory costs nothing
            raise ZipBoundsError(f"the zip holds more than {most:,} members")
        fields = struct.unpack_from("<HHHHHHIIIHHHHHII", raw, pos + 4)
        method, packed, size = fields[3], fields[7], fields[8]
        name_len, extra_len, comment_len, header_at = fields[9], fields[10], fields[11], fields[15]
        name = raw[pos + 46 : pos + 46 + name_len].decode("utf-8", "replace")
        extra = raw[pos + 46 + name_len : pos + 46 + name_len + extra_len]
        size, packed, header_at = _zip64_sizes(extra, size, packed, header_at)
        yield Member(name, method, packed, size, header_at)
        pos += 46 + name_len + extra_len + comment_len


def _directory_span(raw: bytes) -> tuple[int, int]:
    """Where the central directory starts and how long it is, from the end record."""
    tail_start = max(0, len(raw) - _END_SIZE - _MAX_COMMENT)
    at = len(raw) - _END_SIZE
    if at < 0 or raw[at : at + 4] != _END or raw[-2:] != b"\x00\x00":
        found = raw.rfind(_END, tail_start)
        at = found
    if at < 0 or at + _END_SIZE > len(raw):
        raise ZipBoundsError("not a zip: no end of central directory record")
    disk, cd_disk, on_disk, total, size, offset, _ = struct.unpack_from("<HHHHIIH", raw, at + 4)
    if 0xFFFF in (disk, cd_disk, on_disk, total) or _ZIP64_SENTINEL in (size, offset):
        locator = at - 20
        if locator >= 0 and raw[locator : locator + 4] == _LOCATOR64:
            end64 = struct.unpack_from("<IQI", raw, locator + 4)[1]
            if end64 + 56 > len(raw) or raw[end64 : end64 + 4] != _END64:
                raise ZipBoundsError("the zip's ZIP64 end record is corrupt")
            size, offset = struct.unpack_from("<QQ", raw, end64 + 40)
    return offset, size


def _zip64_sizes(extra: bytes, size: int, packed: int, header_at: int) -> tuple[int, int, int]:
    if _ZIP64_SENTINEL not in (size, packed, header_at):
        return size, packed, header_at
    i = 0
    while i + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, i)
        i += 4
        if kind == 0x0001:
            values = list(struct.unpack_from(f"<{length // 8}Q", extra, i))
            if size == _ZIP64_SENTINEL and values:
                size = values.pop(0)
            if packed == _ZIP64_SENTINEL and values:
                packed = values.pop(0)
            if header_at == _ZIP64_SENTINEL and values:
                header_at = values.pop(0)
            break
        i += length
    return size, packed, header_at


# --- each member unpacked as a stream, never past its declared size ----------------------------


def _check_unpacked(raw: bytes, member: Member) -> None:
    data = _packed_bytes(raw, member)
    unpacked = 0
    for chunk in _unpack(data, member):
        unpacked += len(chunk)
        if unpacked > member.size:
            raise ZipBoundsError(
                f"zip member {member.name[:80]!r} unpacks past the {member.size:,} bytes its "
                "directory entry declares"
            )
    if unpacked != member.size:
        raise ZipBoundsError(
            f"zip member {member.name[:80]!r} unpacks to {unpacked:,} bytes, not the "
            f"{member.size:,} its directory entry declares"
        )


def _packed_bytes(raw: bytes, member: Member) -> memoryview:
    """The member's packed bytes, found as Inspect finds them (after its local header)."""
    at = member.header_at
    if at + 30 > len(raw) or raw[at : at + 4] != _LOCAL:
        raise ZipBoundsError(f"zip member {member.name[:80]!r} has no local header")
    name_len, extra_len = struct.unpack_from("<HH", raw, at + 26)
    start = at + 30 + name_len + extra_len
    if start + member.packed > len(raw):
        raise ZipBoundsError(f"zip member {member.name[:80]!r} runs past the end of the file")
    return memoryview(raw)[start : start + member.packed]


def _unpack(data: memoryview, member: Member) -> Iterator[bytes]:
    """The member's unpacked bytes, a chunk at a time: each a bounded read, so no chunk is
    larger than CHUNK whatever the packed bytes say."""
    if member.method == STORED:
        for at in range(0, len(data), CHUNK):
            yield data[at : at + CHUNK]
    elif member.method == DEFLATED:
        yield from _inflate(data)
    elif member.method == ZSTANDARD:
        yield from _unzstd(data)
    else:
        raise ZipBoundsError(
            f"zip member {member.name[:80]!r} is packed with method {member.method}, not one "
            "an import reads (stored, deflate, zstandard)"
        )


def _inflate(data: memoryview) -> Iterator[bytes]:
    inflater = zlib.decompressobj(-15)
    try:
        for at in range(0, len(data), CHUNK):
            pending = data[at : at + CHUNK]
            while pending and not inflater.eof:
                yield inflater.decompress(pending, CHUNK)
                pending = inflater.unconsumed_tail
        while not inflater.eof and (rest := inflater.decompress(b"", CHUNK)):
            yield rest  # output zlib still held when the input ran out
    except zlib.error as exc:
        raise ZipBoundsError(f"a zip member does not inflate ({exc})") from None


def _unzstd(data: memoryview) -> Iterator[bytes]:
    import zstandard  # the inspect extra brings it, as it brings Inspect's own zstd logs

    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    try:
        while chunk := reader.read(CHUNK):
            yield chunk
    except zstandard.ZstdError as exc:
        raise ZipBoundsError(f"a zip member does not unpack ({exc})") from None
