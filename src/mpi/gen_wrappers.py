#!/usr/bin/env python3
"""Generate hrace's MPI wrappers from src/mpi/wrappers.def (see that file for the format).

usage: gen_wrappers.py wrappers.def out.c [out.h]

Each wrapper is the same few lines: take the per-thread re-entry guard (wrap.h), pass straight
to PMPI before MPI_Init / after MPI_Finalize, otherwise hand the call to the handler of its
class with its arguments sorted by role (class rma.hot first asks rma/ops.c's hot repeat:
hot_wrapper). The handlers (p2p.c, complete.c, coll.c, comm.c, part.c,
and for the classes of CALLED below rma/*.c, init.c, annotate.c) hold all the meaning; this
script knows only the shapes. out.h declares the handlers of the CALLED classes, which their
defining files include, so that the compiler checks each against its wrapper's call."""

import re
import sys

P2P = {"send", "isend", "send_init", "recv", "irecv", "recv_init", "mrecv", "imrecv",
       "probe", "iprobe", "mprobe", "improbe"}
HANDLERS = {"start", "startall", "wait", "test", "waitall", "testall", "waitany", "testany",
            "waitsome", "testsome", "get_status", "request_free", "cancel", "buffer_attach",
            "buffer_detach", "comm_idup", "sendrecv", "sendrecv_replace", "isendrecv",
            "isendrecv_replace", "psend_init", "precv_init", "pready", "pready_range",
            "pready_list", "parrived"}
PC_HANDLERS = {"psend_init", "precv_init"}  # also get the caller's code address
MPI4 = {"isendrecv", "isendrecv_replace"}   # generated under #if MPI_VERSION >= 4
MPI4_NAMES = set()                          # so are the lines marked "@4"
UNMODELLED = {
    "rma": "its RMA operations and windows are not checked: races through them are not reported",
    "sync": "the orderings it makes are not seen: races reported across it may be false",
}
# Classes whose wrapper calls hrace__h_<name> (MPI_Win_lock: hrace__h_win_lock) with the
# application's arguments, then HRACE_ACTIVE() and the wrapper's return address (the handler
# gives it to hrace__caller() where it names the application's line). "guarded": before
# MPI_Init and after MPI_Finalize the call goes straight to PMPI; the others always reach their
# handler (MPI_Init itself, MPI_Finalize's report, MPI_Abort's crash record, MPI_Pcontrol's
# levels). The role a line must have (every RMA handler finds its window by it).
CALLED = {"win": ("guarded", {"win", "newwin"}), "epoch": ("guarded", {"win"}),
          "pscw": ("guarded", {"win"}), "rma": ("guarded", {"win"}),
          "init": ("always", set()), "pcontrol": ("always", set())}
COLL_KINDS = {"barrier", "one2all", "all2one", "all2all", "scan", "exscan", "neighbor"}
ROLES = {"buf", "count", "type", "peer", "tag", "comm", "sbuf", "scount", "stype", "dest",
         "stag", "rbuf", "rcount", "rtype", "src", "rtag", "req", "reqs", "n", "status",
         "statuses", "flag", "index", "indices", "outcount", "msg", "root", "newcomm",
         "win", "newwin", "target", "disp", "tcount", "ttype", "obuf", "ocount", "otype", "cbuf",
         "op", "group", "assert", "lock", "base", "size", "unit", "name", "level", "-"}


class DefError(Exception):
    pass


def parse_arg(text, where):
    if text == "...":   # variadic (MPI_Pcontrol): the handler gets a va_list
        return "...", "ap_", "-"
    if ":" not in text:
        raise DefError(f"{where}: argument {text!r} has no ':role'")
    decl, role = text.rsplit(":", 1)
    decl, role = decl.strip(), role.strip()
    if role not in ROLES:
        raise DefError(f"{where}: unknown role {role!r} in {text!r}")
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[\])?$", decl)
    if not m:
        raise DefError(f"{where}: cannot find the parameter name in {decl!r}")
    return decl, m.group(1), role


def parse(path):
    fns = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{lineno}"
            mpi4 = line.startswith("@4 ")
            if mpi4:
                line = line[3:].strip()
            parts = line.split(None, 2)
            if len(parts) < 2:
                raise DefError(f"{where}: expected NAME CLASS ARGS")
            name, cls = parts[0], parts[1]
            args = [parse_arg(a.strip(), where) for a in parts[2].split(";")] if len(parts) > 2 else []
            base = cls.split(".")[0]
            if base not in P2P | HANDLERS | set(CALLED) | {"coll", "comm_new", "comm_free", "unmodelled"}:
                raise DefError(f"{where}: unknown class {cls!r}")
            if base == "rma" and cls not in ("rma", "rma.hot"):
                raise DefError(f"{where}: unknown RMA class {cls!r}")
            if base == "coll" and cls.split(".")[1] not in COLL_KINDS:
                raise DefError(f"{where}: unknown collective kind in {cls!r}")
            roles = [r for _, _, r in args if r != "-"]
            if len(roles) != len(set(roles)):
                raise DefError(f"{where}: a role appears twice")
            if base in CALLED and CALLED[base][1] and not CALLED[base][1] & set(roles):
                raise DefError(f"{where}: class {base} wants an argument of role "
                               f"{' or '.join(sorted(CALLED[base][1]))}")
            if any(d == "..." for d, _, _ in args[:-1]):
                raise DefError(f"{where}: '...' must be the last argument")
            if mpi4:
                MPI4_NAMES.add(name)
            fns.append((name, cls, args))
    return fns


COLL_CHECKED = {"Bcast", "Allreduce", "Reduce", "Allgather", "Alltoall"}
COLL_V = {"Scatterv", "Gatherv", "Allgatherv", "Alltoallv", "Alltoallw", "Reduce_scatter",
          "Neighbor_allgatherv", "Neighbor_alltoallv", "Neighbor_alltoallw"}


def by_role(args, role, default="NULL"):
    for _, pname, r in args:
        if r == role:
            return pname
    return default


def p2p_init(args, kind, mode, fn):
    """A designated initialiser of hrace_p2p_t from the arguments, by role."""
    g = lambda role, d="NULL": by_role(args, role, d)
    return (f"{{ .fn = \"{fn}\", .kind = HRACE_P2P_{kind.upper()}, .mode = HRACE_MODE_{mode.upper()}, "
            f".buf = (void *){g('buf')}, .count = {g('count', '0')}, .type = {g('type', 'MPI_DATATYPE_NULL')}, "
            f".peer = {g('peer', 'MPI_PROC_NULL')}, .tag = {g('tag', '0')}, .comm = {g('comm', 'MPI_COMM_NULL')}, "
            f".req = {g('req')}, .status = {g('status')}, .msg = {g('msg')}, .flag = {g('flag')}, "
            f".active = HRACE_ACTIVE(), .pc = HRACE_CALLER() }}")


def body(name, cls, args):
    parts = cls.split(".")
    base = parts[0]
    call_args = ", ".join(p for _, p, _ in args)
    real = f"PMPI_{name[4:]}({call_args})"
    if base in P2P:
        mode = parts[1] if len(parts) > 1 else "std"
        return [f"hrace_p2p_t a_ = {p2p_init(args, base, mode, name)};",
                "rc = hrace__p2p(&a_);"]
    if base in ("sendrecv", "sendrecv_replace", "isendrecv", "isendrecv_replace"):
        s = (f"{{ .fn = \"{name}\", .kind = HRACE_P2P_SEND, .mode = HRACE_MODE_STD, "
             f".buf = (void *){by_role(args, 'sbuf', by_role(args, 'buf'))}, "
             f".count = {by_role(args, 'scount', by_role(args, 'count'))}, "
             f".type = {by_role(args, 'stype', by_role(args, 'type'))}, .peer = {by_role(args, 'dest')}, "
             f".tag = {by_role(args, 'stag')}, .comm = {by_role(args, 'comm')}, "
             f".active = HRACE_ACTIVE(), .pc = HRACE_CALLER() }}")
        r = (f"{{ .fn = \"{name}\", .kind = HRACE_P2P_RECV, .mode = HRACE_MODE_STD, "
             f".buf = (void *){by_role(args, 'rbuf', by_role(args, 'buf'))}, "
             f".count = {by_role(args, 'rcount', by_role(args, 'count'))}, "
             f".type = {by_role(args, 'rtype', by_role(args, 'type'))}, .peer = {by_role(args, 'src')}, "
             f".tag = {by_role(args, 'rtag')}, .comm = {by_role(args, 'comm')}, "
             f".status = {by_role(args, 'status')}, .active = HRACE_ACTIVE(), .pc = HRACE_CALLER() }}")
        replace = 1 if base.endswith("_replace") else 0
        if base.startswith("i"):
            return [f"hrace_p2p_t s_ = {s}, r_ = {r};",
                    f"rc = hrace__p2p_isendrecv(&s_, &r_, {replace}, {by_role(args, 'req')});"]
        return [f"hrace_p2p_t s_ = {s}, r_ = {r};",
                f"rc = hrace__p2p_sendrecv(&s_, &r_, {replace});"]
    if base in HANDLERS:
        pc = ", HRACE_CALLER()" if base in PC_HANDLERS else ""
        return [f"rc = hrace__h_{base}({call_args}{', ' if call_args else ''}HRACE_ACTIVE(){pc});"]
    if base in CALLED:
        return [f"rc = {handler_name(name)}({call_args}{', ' if call_args else ''}"
                f"HRACE_ACTIVE(), HRACE_RET_ADDR());"]
    if base == "coll" and len(parts) > 2 and parts[2] == "init":
        return persistent_coll(name, parts[1], args)
    if base == "coll":
        kind, nb = parts[1], len(parts) > 2 and parts[2] == "nb"
        req = by_role(args, "req") if nb else "NULL"
        comm = by_role(args, 'comm')
        if by_role(args, 'root', None) is not None:
            # A root that is no rank is diagnosed (mpi/argcheck.h); the call is then not modelled.
            comm = (f"hrace__check_root(\"{name}\", {comm}, {by_role(args, 'root')}, HRACE_CALLER()) "
                    f"? MPI_COMM_NULL : {comm}")
        nbname = name[5:6].upper() + name[6:] if nb else None   # MPI_Ibcast -> Bcast
        plain = name[4:] if name[4:] in COLL_CHECKED else nbname if nbname in COLL_CHECKED else None
        chk = None
        if plain in ("Bcast",):
            chk = "buffer, count, datatype, buffer, count, datatype"
        elif plain in ("Allreduce",):
            chk = "sendbuf, count, datatype, recvbuf, count, datatype"
        elif plain in ("Reduce",):
            chk = "sendbuf, count, datatype, NULL, 0, MPI_DATATYPE_NULL"
        elif plain in ("Allgather", "Alltoall"):
            chk = "sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype"
        pre = []
        if chk:
            # Buffers and datatypes every rank must give (mpi/argcheck.h): diagnosed only.
            call = f"hrace__check_coll(\"{name}\", {chk}, HRACE_CALLER())"
            root = by_role(args, "root", None)
            if root:   # an intercommunicator's MPI_ROOT / MPI_PROC_NULL side gives none
                call = f"{root} >= 0 ? {call} : 0"
            pre = [f"int bad_ = {call};", "(void)bad_;"]
        vplain = nbname if nb else name[4:]
        if vplain in COLL_V:
            # Count / displacement arrays of the v and w forms (mpi/argcheck.h): diagnosed only.
            bargs = ", ".join(p for _, p, r in args if r != "req")
            chk = f"hrace__check_{vplain}(\"{name}\", {bargs}, HRACE_CALLER())"
            pre = [f"int bad_ = {chk};", "(void)bad_;"]
        lines = pre + ["hrace_coll_t c_;",
                 f"hrace__coll_begin(&c_, HRACE_COLL_{kind.upper()}, {comm}, "
                 f"{by_role(args, 'root', '0')}, \"{name}\", HRACE_ACTIVE());"]
        if kind == "barrier" and not nb:
            # The all-to-all clock exchange synchronises exactly as a barrier does: it replaces
            # the real call (one collective instead of two) unless hrace doesn't know comm.
            lines.append(f"rc = c_.rec ? hrace__coll_barrier(&c_) : {real};")
        else:
            if not nb:
                lines.append("hrace__coll_start(&c_);")
            lines.append(f"rc = {real};")
            lines.append(f"hrace__coll_end(&c_, rc, {req});")
            if nb and kind != "barrier" and not name.endswith("_c"):
                # Its buffers are in use until the request completes (mpi/nbcbuf.c).
                lines.append(f"if (rc == MPI_SUCCESS && HRACE_ACTIVE() && c_.rec{' && !bad_' if chk else ''}) "
                             f"hrace__nbc_{name[4:]}({call_args}, HRACE_CALLER());")
        return lines
    if base == "comm_new":
        nc = by_role(args, "newcomm")
        return [f"rc = {real};",
                f"if (rc == MPI_SUCCESS) hrace__comm_created(*{nc}, {by_role(args, 'comm')});"]
    if base == "comm_free":
        nc = by_role(args, "newcomm")
        return [f"void *old_ = hrace__comm_freeing(*{nc});",
                f"rc = {real};",
                f"hrace__comm_freed(old_, rc);"]
    if base == "unmodelled":
        why = UNMODELLED.get(parts[1] if len(parts) > 1 else "")
        if why is None:
            raise DefError(f"{name}: unmodelled.KIND wants one of {sorted(UNMODELLED)}")
        return ["static _Atomic int warned_;",
                f"if (!atomic_exchange(&warned_, 1)) hrace__unmodelled(\"{name}\", \"{why}\");",
                f"rc = {real};"]
    raise DefError(f"{name}: no template for class {cls}")


def handler_name(name):
    return "hrace__h_" + name[4:].lower()


def handler_proto(name, args):
    params = ", ".join("va_list ap_" if d == "..." else d for d, _, _ in args)
    return f"int {handler_name(name)}({params}{', ' if params else ''}int active, uintptr_t ret);"


def hot_name(name):
    return "hrace__hot_" + name[4:].lower()


def hot_proto(name, args):
    params = ", ".join(d for d, _, _ in args)
    return f"int {hot_name(name)}({params}, uintptr_t ret);"


def hot_wrapper(name, args):
    """rma.hot: the thread's hot repeat (rma/ops.c) is asked first, with the wrapper's return
    address as it finds it; a repeat is only the real call, made as a nested call is
    (HRACE_PASS). Everything else is the ordinary wrapper, out of line so that the repeat's path
    saves no register for it. (Both ways out as jumps to functions of the wrapper's own
    arguments, the repeat's path cost 5 instructions more: the compiler still saved two
    registers, and the real call's frame came on top; bench/README.md, "Session 15".)"""
    params = ", ".join(d for d, _, _ in args)
    call_args = ", ".join(p for _, p, _ in args)
    whole = [l.replace("HRACE_RET_ADDR()", "ret_") for l in body(name, "rma", args)]
    return ([f"__attribute__((noinline)) static int whole_{name}({params}, uintptr_t ret_) {{",
             "  HRACE_ENTER();",
             "  int rc;",
             f"  if (HRACE_UNLIKELY(!hrace__proc.mpi_ready)) rc = PMPI_{name[4:]}({call_args});",
             "  else {"] +
            ["    " + l for l in whole] +
            ["  }", "  HRACE_LEAVE();", "  return rc;", "}", "",
             f"HRACE_EXPORT int {name}({params}) {{",
             f"  if ({hot_name(name)}({call_args}, HRACE_RET_ADDR()))",
             f"    HRACE_PASS(PMPI_{name[4:]}({call_args}));",
             f"  return whole_{name}({call_args}, HRACE_RET_ADDR());",
             "}", ""])


def header(fns, src):
    """The handlers of the CALLED classes, declared once for the wrappers and their definitions."""
    out = [f"/* Generated by src/mpi/gen_wrappers.py from {src}: do not edit. The handlers the",
           " * generated wrappers of windows, epochs, RMA operations, initialisation and MPI_Pcontrol",
           " * call: the application's arguments, then active (HRACE_ACTIVE(): not a nested call,",
           " * MPI ready) and ret (the wrapper's return address: hrace__caller(ret) is the",
           " * application's line). Each runs the real call itself and returns its error code. */",
           "#ifndef HRACE_GEN_WRAPPERS_H",
           "#define HRACE_GEN_WRAPPERS_H",
           "#include <mpi.h>",
           "#include <stdarg.h>",
           "#include <stdint.h>",
           ""]
    for name, cls, args in fns:
        if cls.split(".")[0] in CALLED:
            out.append(handler_proto(name, args))
        if cls == "rma.hot":
            out.append(hot_proto(name, args))
    out += ["#endif", ""]
    return "\n".join(out)


def persistent_coll(name, kind, args):
    """coll.KIND.init: an MPI-4 persistent collective's initialisation (MPI_Allreduce_init). The
    real call, then the request's persistent state (coll.c: each MPI_Start begins a round) and
    the buffers every round puts in flight, recorded by the non-blocking form's hrace__nbc_*
    (its arguments are the init's without the info)."""
    call_args = ", ".join(p for _, p, _ in args)
    comm, root = by_role(args, "comm"), by_role(args, "root", None)
    lines = [f"MPI_Comm comm_ = {comm};"]
    if root is not None:   # a root that is no rank is diagnosed; the call is then not modelled
        lines.append(f"if (hrace__check_root(\"{name}\", comm_, {root}, HRACE_CALLER())) comm_ = MPI_COMM_NULL;")
    bad = ""
    if name.endswith("_init") and name[4:-5] in COLL_V:   # as for the blocking form
        bargs = ", ".join(p for d, p, r in args if r != "req" and not d.startswith("MPI_Info "))
        lines.append(f"int bad_ = hrace__check_{name[4:-5]}(\"{name}\", {bargs}, HRACE_CALLER());")
        bad = " && !bad_"
    lines += [f"rc = PMPI_{name[4:]}({call_args});",
              f"int made_ = rc == MPI_SUCCESS && hrace__coll_persistent(HRACE_COLL_{kind.upper()}, comm_, "
              f"{root if root is not None else '0'}, \"{name}\", {by_role(args, 'req')}, HRACE_ACTIVE(), HRACE_CALLER());"]
    if kind != "barrier" and name.endswith("_init"):
        nbargs = ", ".join(p for d, p, _ in args if not d.startswith("MPI_Info "))
        lines.append(f"if (made_ && HRACE_ACTIVE(){bad}) hrace__nbc_I{name[4:-5].lower()}({nbargs}, HRACE_CALLER());")
    else:
        lines.append("(void)made_;")
    return lines


COUNT_ROLES = {"count", "scount", "rcount"}


def large_count(name, cls, args):
    """MPI-4's large-count form of a point-to-point call (MPI_Send_c: MPI_Count counts): the
    same handler with the counts narrowed to int, which frames the message as the int form
    does. Unwrapped, its messages would travel without hrace's frame and be misread by a
    framed receive on the other side. A count beyond what a frame can hold is refused with a
    clear error (hrace__count_too_large), never sent unframed."""
    base = cls.split(".")[0]
    if base not in P2P | {"sendrecv", "sendrecv_replace"} or \
            not any(r in COUNT_ROLES for _, _, r in args):
        return []
    cargs = []
    for decl, pname, role in args:
        if role in COUNT_ROLES:
            cargs.append((decl.replace("int ", "MPI_Count ", 1), f"(int){pname}", role))
        else:
            cargs.append((decl, pname, role))
    params = ", ".join(d for d, _, _ in cargs)
    call_args = ", ".join(p for _, p, _ in args)
    big = " || ".join(f"{p} > HRACE_COUNT_MAX" for _, p, r in args if r in COUNT_ROLES)
    out = [f"HRACE_EXPORT int {name}_c({params}) {{",
           "  HRACE_ENTER();",
           "  int rc;",
           f"  if (HRACE_UNLIKELY(!hrace__proc.mpi_ready)) rc = PMPI_{name[4:]}_c({call_args});",
           f"  else if (HRACE_UNLIKELY({big})) rc = hrace__count_too_large(\"{name}_c\", HRACE_CALLER());",
           "  else {"]
    out.extend("    " + l for l in body(f"{name}_c", cls, cargs))
    out += ["  }", "  HRACE_LEAVE();", "  return rc;", "}", ""]
    return out


def generate(fns, src):
    out = [f"/* Generated by src/mpi/gen_wrappers.py from {src}: do not edit. */",
           "#include \"mpi/wrap.h\"",
           "#include \"mpi/handlers.h\"",
           "#include \"mpi/nbcbuf.h\"",
           "#include \"mpi/argcheck.h\"",
           "#include \"wrappers.h\"",
           ""]
    large = []
    for name, cls, args in fns:
        large += large_count(name, cls, args)
        mpi4 = cls.split(".")[0] in MPI4 or name in MPI4_NAMES
        if mpi4:
            out.append("#if MPI_VERSION >= 4")
        params = ", ".join(d for d, _, _ in args) or "void"
        call_args = ", ".join(p for _, p, _ in args)
        base = cls.split(".")[0]
        if cls == "rma.hot":
            out += hot_wrapper(name, args)
            continue
        out.append(f"HRACE_EXPORT int {name}({params}) {{")
        out.append("  HRACE_ENTER();")
        out.append("  int rc;")
        if args and args[-1][0] == "...":
            out.append("  va_list ap_;")
            out.append(f"  va_start(ap_, {args[-2][1]});")
        if base in CALLED and CALLED[base][0] == "always":
            out.extend("  " + l for l in body(name, cls, args))
        else:
            out.append(f"  if (HRACE_UNLIKELY(!hrace__proc.mpi_ready)) rc = PMPI_{name[4:]}({call_args});")
            out.append("  else {")
            out.extend("    " + l for l in body(name, cls, args))
            out.append("  }")
        if args and args[-1][0] == "...":
            out.append("  va_end(ap_);")
        out.append("  HRACE_LEAVE();")
        out.append("  return rc;")
        out.append("}")
        if mpi4:
            out.append("#endif")
        out.append("")
    if large:
        out += ["/* MPI-4 large-count forms (MPICH 4; Open MPI 4.1 has none). */",
                "#if MPI_VERSION >= 4"] + large + ["#endif", ""]
    return "\n".join(out)


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        fns = parse(argv[1])
        src = argv[1].rsplit("/", 1)[-1]
        text = generate(fns, src)
        htext = header(fns, src)
    except DefError as e:
        print(f"gen_wrappers.py: error: {e}", file=sys.stderr)
        return 1
    with open(argv[2], "w") as f:
        f.write(text)
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write(htext)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
