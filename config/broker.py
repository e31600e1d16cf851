"""The embedded broker: kombu's filesystem transport, made safe for a web process and a
worker sharing one folder.

kombu writes a message in place: the file exists, empty, before its bytes are written. A
worker polling in that instant takes the empty file, cannot decode it, and its consumer dies
with JSONDecodeError (the demo's worker was seen to die so, with jobs left waiting). Here a
message is written under a name no consumer reads and renamed into place, which is atomic on
one filesystem, so a consumer sees a whole message or none. A consumer claims a message by
renaming it into the broker's own processing folder (kombu moves it to the system's temp
folder, a copy when that is another filesystem, so two consumers could both take it), and a
file that still does not decode is set aside and logged, never fatal. The exchange tables
(which queue an exchange routes to) are replaced whole in the same way, under a lock file,
since kombu truncates and rewrites them in place while producers read them.
"""

from __future__ import annotations

import fcntl
import logging
import os
import uuid
from pathlib import Path
from queue import Empty
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, virtual
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

WRITING_SUFFIX = ".writing"  # a message being written: its name ends past ".<queue>.msg"
UNREADABLE_FOLDER = "unreadable"


def message_name(queue: str) -> str:
    """kombu's naming: sorted names are oldest first, and the part after the first dot says
    the queue."""
    return f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"


def is_message_of(filename: str, queue: str) -> bool:
    return filename.partition(".")[2] == f"{queue}.msg"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        final = os.path.join(self.data_folder_out, message_name(queue))
        partial = final + WRITING_SUFFIX
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue):
        claimed_folder = Path(self.processed_folder)
        for filename in sorted(os.listdir(self.data_folder_in)):
            if not is_message_of(filename, queue):
                continue
            claimed = claimed_folder / filename
            try:
                os.rename(os.path.join(self.data_folder_in, filename), claimed)
            except OSError:
                continue  # another consumer took it first
            try:
                payload = claimed.read_bytes()
                message = loads(bytes_to_str(payload))
            except (OSError, ValueError) as exc:
                self._set_aside(claimed, exc)
                continue
            if not self.store_processed:
                claimed.unlink(missing_ok=True)
            return message
        raise Empty()

    def _set_aside(self, claimed: Path, exc: Exception) -> None:
        unreadable = claimed.parent / UNREADABLE_FOLDER
        unreadable.mkdir(exist_ok=True)
        try:
            os.replace(claimed, unreadable / claimed.name)
        except OSError:
            claimed.unlink(missing_ok=True)
        log.error("Broker message %s could not be read (%s); set aside.", claimed.name, exc)

    def get_table(self, exchange):
        try:
            table = loads(bytes_to_str(self._exchange_file(exchange).read_bytes()))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open the table of exchange {exchange!r}") from exc
        return [filesystem.exchange_queue_t(*row) for row in table]

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._rewrite_table(exchange, lambda rows: rows if binding in rows else [binding, *rows])

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        # The virtual channel's bookkeeping, without kombu's in-place rewrite of the table.
        virtual.Channel._delete(self, queue, exchange, routing_key, pattern, *args, **kwargs)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._rewrite_table(exchange, lambda rows: [row for row in rows if row != binding])

    def _rewrite_table(self, exchange, change) -> None:
        """Read, change and replace an exchange's table whole, one writer at a time."""
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(exist_ok=True)
        with open(file.with_name(file.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            rows = change(self.get_table(exchange))
            partial = file.with_name(file.name + WRITING_SUFFIX)
            partial.write_bytes(str_to_bytes(dumps(rows)))
            os.replace(partial, file)


class Transport(filesystem.Transport):
    Channel = Channel
