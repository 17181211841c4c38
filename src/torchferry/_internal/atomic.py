"""The one way torchferry writes a file: complete or not at all, like ``open(path, "wb")`` otherwise.

:func:`write_atomic` (and :func:`write_bytes`, :func:`write_text`) write the new
content into a temporary file next to the target, ``fsync`` it, and rename it over
the target, then ``fsync`` the directory: a crash, a ``kill -9`` or a full disk
never leaves a half-written file where a good one was.  Everything else behaves
as ``open(path, "wb")`` would, which is what ``torch.save`` does:

* a symlink is followed: its target gets the new content, the link stays a link;
* character devices, FIFOs, sockets and anything reached through ``/proc`` (``/dev/null``,
  ``/dev/stdout``, ``/dev/fd/1``) are written directly, with no temporary file and
  no rename (renaming over ``/dev/null`` as root would replace the device node);
  ``/dev/stdout``, ``/dev/fd/N`` and ``/proc/self/fd/N`` are written through the
  process's own descriptor, like ``>&N`` in a shell, so when it is a file the shell
  redirected to, what the program printed before is neither truncated nor overwritten;
* what the OS refuses is refused with the error ``open()`` gives: a read-only file
  (``PermissionError``; root may write one, as with ``open()``), a path with a
  trailing slash (``IsADirectoryError`` / ``NotADirectoryError``), a directory, a
  missing parent directory (``FileNotFoundError``);
* the path is resolved as the kernel resolves it, once: symlinks first, then ``..``
  (``latest/../model.pt`` with ``latest`` a symlink names the ``model.pt`` next to
  the link's target, as for ``open()``; no lexical ``normpath``);
* the file's permission bits, its extended attributes (POSIX ACLs, ``user.*``,
  SELinux labels) and, when run as root, its owner are kept; where they cannot be
  copied to the temporary file (another user's file, an attribute this user may not
  set), the complete new content is copied into the file in place instead, so
  nothing the file carried is lost, as with ``open()``; a new file gets ``0o666``
  minus the umask, as ``open()`` gives it;
* in a sticky directory (mode ``1777``, as ``/tmp``), where a rename over another
  user's file is refused, that file is written in place when it is writable, as
  ``open()`` writes it;
* a file with several hard links is rewritten in place once the new content is
  complete in the temporary file, so every link sees it (as with ``open()``; a
  rename would silently detach this name from the others).  Only a crash during
  that final copy can leave such a file partly written;
* in a directory where no file may be created but the existing file is writable,
  and for a file bind-mounted on its own (``docker -v model.pt:/app/model.pt``: a
  rename over it fails with ``EBUSY``), the file is rewritten in place (the new
  content is complete in the temporary file first when it can be), as ``open()``
  would write it.

With ``unchanged=`` (what ``ferry check --fix`` passes: the bytes it read), the
target is replaced only if it still holds exactly those bytes right before the rename;
otherwise :class:`ChangedSinceRead` is raised and the file is left alone, so an edit
saved meanwhile is never overwritten.

Temporary files are named ``.<name>.<random>.ferry-tmp`` (the name cut to 120 bytes,
not characters, so a long non-ASCII name still fits ``NAME_MAX``) and are locked
(``flock``) while being written.  A write that was killed leaves its temporary
file behind; the next write to the same path deletes such leftovers, and only
those (unlocked, and older than a few seconds; the ``.<name>.<8 chars>.tmp`` files
of earlier torchferry versions once they are an hour old).

Stdlib only, and never imports torch.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Callable, Iterable
from typing import IO, Any, Union

from torchferry.errors import ChangedSinceRead

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, so no stale-file cleaning
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "write_atomic", "write_bytes", "write_text", "TMP_SUFFIX", "ChangedSinceRead",
    "clean_stale_temps",
]

PathLike = Union[str, "os.PathLike[str]"]
Writer = Callable[[IO[bytes]], Any]

#: The suffix of every temporary file :func:`write_atomic` creates.
TMP_SUFFIX = ".ferry-tmp"
#: A leftover temporary file is deleted only when it is unlocked and at least this old (s).
STALE_AFTER = 10.0
#: The same for the ``.<name>.<8 chars>.tmp`` files of torchferry versions before this module.
LEGACY_STALE_AFTER = 3600.0
_MAX_BASE = 120  # bytes: keeps the temporary name under NAME_MAX for long file names
_MAX_LINKS = 40  # symlinks followed before ELOOP, as Linux does
_COPY_CHUNK = 1 << 20


def write_bytes(path: PathLike, data: bytes, *, unchanged: bytes | None = None) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring).

    With ``unchanged``, write only if the file still holds exactly those bytes (checked
    right before the rename), else raise :class:`ChangedSinceRead`."""
    write_atomic(path, lambda fh: fh.write(data), unchanged=unchanged)


def write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see the module docstring).

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> write_text(p, "hello\\n"); open(p).read()
    'hello\\n'
    """
    write_bytes(path, text.encode(encoding))


def write_atomic(path: PathLike, write: Writer, *, unchanged: bytes | None = None) -> None:
    """Call ``write(fh)`` with a binary file and make what it wrote ``path``'s content.

    ``write`` must only write (no ``seek`` back is needed; a device or a FIFO
    gets the bytes as they come).  If it raises, the target is left as it was
    and the exception propagates.  ``unchanged``: see :func:`write_bytes`.
    """
    spath = os.fspath(path)
    if not spath or spath.endswith(("/", os.sep)) or (os.altsep and spath.endswith(os.altsep)):
        _write_direct(spath, write)  # the OS's own error (or its own behaviour)
        return
    try:
        target, via_proc, own_fd = _resolve(spath)
    except OSError:
        _write_direct(spath, write)  # ELOOP, ENOTDIR, EACCES on a parent: open() says which
        return
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError:
        _write_direct(spath, write)
        return
    if own_fd is not None:
        # /dev/stdout, /dev/fd/2, /proc/self/fd/N: one of this process's own open files
        # (maybe a file the shell redirected to): written through that descriptor, at its
        # offset, as `>&N` would, so nothing printed before is truncated or overwritten
        _write_fd(own_fd, write)
        return
    if via_proc or (st is not None and not stat.S_ISREG(st.st_mode)):
        # /dev/null, /dev/stdout, a FIFO, a directory (open() raises IsADirectoryError)
        _write_direct(spath, write)
        return
    if st is not None:
        # Refuse what open(path, "wb") would refuse (a read-only file unless root, a read-only
        # file system, a busy executable), without truncating anything.
        try:
            os.close(os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)))
        except OSError as exc:
            raise _as_open_error(exc, spath) from None
    directory = os.path.dirname(target) or "."
    _clean_stale(directory, os.path.basename(target))
    try:
        fd, tmp = _create_temp(directory, os.path.basename(target))
    except FileNotFoundError as exc:
        raise _as_open_error(exc, spath) from None
    except OSError as exc:
        if st is not None and exc.errno in (errno.EACCES, errno.EPERM):
            # The directory is closed to new files, but the file itself is writable.
            _check_unchanged(target, unchanged, spath)
            _write_in_place(target, write)
            return
        raise _as_open_error(exc, spath) from None
    try:
        in_place = st is not None and st.st_nlink > 1  # every hard link sees the new content
        if st is not None and not _keep_attributes(fd, tmp, target, st):
            in_place = True  # what the file carries cannot be copied: keep the file itself
        with os.fdopen(fd, "wb", closefd=False) as fh:
            write(fh)
            fh.flush()
        _fsync(fd)
        _check_unchanged(target, unchanged, spath)
        if in_place:
            _copy_into(fd, target)
            os.unlink(tmp)
        else:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                # A file bind-mounted on its own (docker -v model.pt:/app/model.pt) cannot be
                # renamed over (EBUSY/EXDEV), nor another user's file in a sticky directory
                # (EPERM); open() can write them, so write them in place.
                if st is None or exc.errno not in (errno.EBUSY, errno.EXDEV, errno.EPERM,
                                                   errno.EACCES):
                    raise
                _copy_into(fd, target)
                os.unlink(tmp)
            else:
                _fsync_dir(directory)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        os.close(fd)  # releases the lock


def _keep_attributes(fd: int, tmp: str, target: str, st: os.stat_result) -> bool:
    """Give the temporary file the replaced file's owner (when root), mode and extended
    attributes (ACLs included); False when the rename would lose any of them (another
    user's file, an attribute this user may not set): then the file is written in place.
    A file system that cannot chmod (vfat) or has no xattrs is no reason: open() writes there.
    """
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if hasattr(os, "geteuid") and not root and st.st_uid != os.geteuid():
        return False  # only root can give the new file another owner
    if root and (st.st_uid != 0 or st.st_gid != os.getegid()):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except OSError:
            return False
    elif not root and st.st_gid != os.fstat(fd).st_gid:
        try:
            os.fchown(fd, -1, st.st_gid)  # one of the user's groups (else: in place)
        except OSError:
            return False
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        else:  # pragma: no cover - Windows before 3.13
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
    except OSError:
        pass
    return _copy_xattrs(target, fd)


def _copy_xattrs(target: str, fd: int) -> bool:
    """Copy every extended attribute of ``target`` to ``fd`` (after the mode: a POSIX ACL
    sets the group bits); False when one cannot be copied."""
    if not hasattr(os, "listxattr"):  # pragma: no cover - not Linux
        return True
    try:
        names = os.listxattr(target)
    except OSError as exc:
        return exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP)
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(target, name))
        except OSError:
            return False
    try:  # what the new file got from the directory (a default ACL) but the old one lacks
        extra = [n for n in os.listxattr(fd) if n not in names]
    except OSError:
        return True
    for name in extra:
        try:
            os.removexattr(fd, name)
        except OSError:
            return False
    return True


def _fsync(fd: int) -> None:
    """fsync, where the file system supports it; a full disk or an I/O error still raises."""
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
            raise


def _check_unchanged(target: str, expected: bytes | None, path: str) -> None:
    """Raise :class:`ChangedSinceRead` unless ``target`` holds exactly ``expected``."""
    if expected is None:
        return
    try:
        with open(target, "rb") as fh:
            same = os.fstat(fh.fileno()).st_size == len(expected) and fh.read() == expected
    except FileNotFoundError:
        same = False
    if not same:
        raise ChangedSinceRead(path)


def _as_open_error(exc: OSError, path: str) -> OSError:
    """``exc`` as ``open(path)`` would have raised it: same type and errno, the user's path."""
    if exc.errno is None:
        return exc
    return OSError(exc.errno, os.strerror(exc.errno), path)  # OSError() picks the subclass


def _write_direct(path: str, write: Writer) -> None:
    with open(path, "wb") as fh:
        write(fh)


def _write_fd(fd: int, write: Writer) -> None:
    with os.fdopen(os.dup(fd), "wb") as fh:
        write(fh)


def _write_in_place(target: str, write: Writer) -> None:
    with open(target, "wb") as fh:
        write(fh)
        fh.flush()
        _fsync(fh.fileno())


_OWN_FD = re.compile(r"/proc/(?:self|thread-self|(\d+)(?:/task/\d+)?)/fd/(\d+)")


def _resolve(path: str) -> tuple[str, bool, int | None]:
    """The file ``path`` names after following every symlink; whether the way there went
    through ``/proc``; and, when it went through one of this process's own descriptors
    (``/dev/stdout`` -> ``/proc/self/fd/1``), that descriptor: a file a shell opened
    must be written through it, not replaced."""
    # No normpath: "link/../x" is the x next to the link's target, as the kernel reads it.
    p = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    via_proc = False
    for _ in range(_MAX_LINKS):
        head, name = os.path.split(p)
        real_head = os.path.realpath(head)
        if _under_proc(head) or _under_proc(real_head):
            via_proc = True
        p = os.path.join(real_head, name)
        m = _OWN_FD.fullmatch(p)
        if m and (m.group(1) is None or int(m.group(1)) == os.getpid()):
            return p, True, int(m.group(2))
        try:
            link = os.readlink(p)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):  # not a link / does not exist
                return p, via_proc, None
            raise
        p = os.path.join(real_head, link)  # its ".." is resolved by realpath, after links
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)


def _under_proc(p: str) -> bool:
    return p == "/proc" or p.startswith("/proc/")


def _temp_prefix(name: str) -> str:
    """``.<name>.``, the name cut to :data:`_MAX_BASE` bytes (``NAME_MAX`` counts bytes)."""
    return f".{os.fsdecode(os.fsencode(name)[:_MAX_BASE])}."


def _create_temp(directory: str, name: str) -> tuple[int, str]:
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    prefix = _temp_prefix(name)
    for _ in range(100):
        # what ``secrets.token_hex(6)`` returns, without importing it (it loads OpenSSL)
        tmp = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{TMP_SUFFIX}")
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for open()
        except FileExistsError:
            continue
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                pass  # a file system without locks: the age test alone protects it
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _stale_pattern(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(_temp_prefix(name)) + r"[0-9a-f]{12}" + re.escape(TMP_SUFFIX) + "$")


def _legacy_pattern(name: str) -> re.Pattern[str]:
    # what torchferry.save named its temporary files before this module (tempfile.mkstemp)
    return re.compile(re.escape(f".{name}.") + r"[a-z0-9_]{8}\.tmp$")


def _clean_stale(directory: str, name: str) -> None:
    """Delete temporary files a killed earlier write to ``directory/name`` left behind."""
    clean_stale_temps(directory, [name])


def clean_stale_temps(directory: str, names: Iterable[str]) -> int:
    """Delete the temporary files killed earlier writes to ``directory/<name>`` (for each
    of ``names``) left behind: unlocked and older than :data:`STALE_AFTER`.  ``ferry check
    --fix`` calls it for the files it checks, fixed or not.  Returns how many it deleted."""
    if fcntl is None:  # pragma: no cover
        return 0
    prefixes = {_temp_prefix(n): n for n in names}
    patterns = [(_stale_pattern(n), _legacy_pattern(n)) for n in prefixes.values()]
    try:
        entries = [e.name for e in os.scandir(directory)
                   if e.name.startswith(".") and e.name.endswith((TMP_SUFFIX, ".tmp"))]
    except OSError:
        return 0
    removed = 0
    now = time.time()
    for entry in entries:
        min_age = None
        for pattern, legacy in patterns:
            if pattern.match(entry):
                min_age = STALE_AFTER
            elif legacy.match(entry):
                min_age = LEGACY_STALE_AFTER  # its writer took no lock: wait much longer
            if min_age is not None:
                break
        if min_age is not None and _remove_if_stale(os.path.join(directory, entry), now, min_age):
            removed += 1
    return removed


def _remove_if_stale(full: str, now: float, min_age: float) -> bool:
    assert fcntl is not None
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < min_age:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a write in progress holds it
        try:
            now_st = os.lstat(full)
        except OSError:
            return False
        if (now_st.st_dev, now_st.st_ino) != (st.st_dev, st.st_ino):
            return False
        try:
            os.unlink(full)
        except OSError:
            return False
        return True
    finally:
        os.close(fd)


def _copy_into(src_fd: int, target: str) -> None:
    os.lseek(src_fd, 0, os.SEEK_SET)
    with open(target, "r+b") as out:
        out.truncate(0)
        while True:
            chunk = os.read(src_fd, _COPY_CHUNK)
            if not chunk:
                break
            out.write(chunk)
        out.flush()
        _fsync(out.fileno())


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory
    finally:
        os.close(fd)
