"""The turn machine as generated code: random play without frames.

`State.playout` plays the turns through generated functions, one per block of steps (a
turn, a branch, a procedure, an action's steps): a step is a line or a few, a nested
block a call, a decision its options as records and a random pick, with no frame pushed,
no Decision made and no return to a loop between moves. The generated bodies of steps of
effects, of the options' record loops and of the effects of the option played are written
into the block, not called (see `_Writer.paste`). Random play needs no pause: whoever
decides, the playout's RNG picks at once. A playout of some decisions plays on
them only the turns it cannot stop within; the machine plays the rest.

The functions do the engine's work in the engine's order, so that they play the same
games (the same draws, log, versions, change bits, checks, step and work budgets): the
step budget counts each step of a block, the end and the triggers are checked after each
step of a block that the machine checks, and the work meter starts a new call's budget
where a move or a chance step would have been played by a call of its own. Errors name
the step they arose in, as the machine names them.

Steps enter the source as constants and every name is the generator's own, so that no
game file can change the shape of the code (as in codegen).
"""

from __future__ import annotations

import re
from typing import Any

from rulekit.backends import pysource
from rulekit.engine import steps as S
from rulekit.engine.state import _CALLS, RUNTIME_ERRORS, State, _failed, _late
from rulekit.expr import budget

#: False: playouts run on the machine of frames (the differential tests compare both)
ENABLED = True

#: where a `repeat` keeps its count of rounds, as Repeat does
_ROUNDS = "#rounds"
#: the most lines of a block function that bodies are written into (more: calls)
_MOST_LINES = 3000
#: procedures of effects written into a block within one another at most (deeper: a call)
_NESTED_PASTES = 8
#: a name in generated source (an attribute, after a dot, is not one)
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
#: a temporary of a generated function: its own local, which a pasted body renames; the
#: compiler's locals (v12) and constants (k34) keep their names, unique in a game
_TEMP = re.compile(r"(?![kv]\d)([a-z]+)\d+")


class BreakSignal(Exception):
    """A `break` on its way to the `repeat` it ends (through any calls between)."""

    def __init__(self, step: S.Break) -> None:
        self.step = step


class _Writer:
    """The source of all block functions of one game, written as they are asked for."""

    def __init__(self, check_effects: bool, after_step: Any, consts: dict[str, Any]) -> None:
        self.check_effects = check_effects
        self.after_step = after_step
        self.all_consts = consts  # every constant of the source, by name
        self.names: dict[tuple[int, bool], str] = {}
        self.todo: list[tuple[str, tuple, bool]] = []
        self.lines: list[str] = []
        self.temps = 0
        self.start = 0  # where the function being written starts in `lines`
        self.ok = True
        self.consts: dict[int, str] = {}
        #: the tables from an option's steps to their block: (name, {id: function name}),
        #: and the name of each decision's table
        self.tables: list[tuple[str, dict[int, str]]] = []
        self.tables_of: dict[int, str] = {}

    def block(self, steps: tuple, checks: bool) -> str:
        """The name of the function that runs `steps` (written later, so blocks may recur)."""
        key = (id(steps), checks)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"b{len(self.names)}"
            self.todo.append((name, steps, checks))
        return name

    def c(self, value: Any) -> str:
        """The constant's name in the source: one name per object, however often used."""
        name = self.consts.get(id(value))
        if name is None:
            name = self.consts[id(value)] = pysource.const(value)
        return name

    def temp(self, stem: str) -> str:
        self.temps += 1
        return f"{stem}{self.temps}"

    def add(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def paste(self, depth: int, inline: Any, args: dict[str, str]) -> bool:
        """Write a generated function's body (a codegen.Inline) at `depth` instead of a call
        of it: its parameters named by `args`, its temporaries renamed to the writer's own;
        False (nothing written) when the body returns, which only a call can do."""
        if any(line.lstrip().startswith("return") for line in inline.lines):
            return False
        if len(self.lines) - self.start + len(inline.lines) > _MOST_LINES:
            return False  # a game of very many options: one function stays of a fair size
        for name, value in inline.consts.items():  # names are unique to their value
            assert self.all_consts.get(name, value) is value, name
        self.all_consts.update(inline.consts)
        temps: dict[str, str] = {}

        def rename(m: re.Match) -> str:
            word = m.group(0)
            if word in args:
                return args[word]
            temp = _TEMP.fullmatch(word)
            if temp is None:
                return word
            if word not in temps:
                temps[word] = self.temp(temp.group(1))
            return temps[word]

        pad = "    " * (depth - 1)
        for line in inline.lines:
            self.lines.append(pad + _WORD.sub(rename, line))
        return True

    def write_all(self, phases: set[str]) -> None:
        """Every block asked for; those in `phases` (a turn) start at the step `start`,
        where a playout took over from the machine."""
        while self.todo:
            name, steps, checks = self.todo.pop(0)
            entry = name in phases
            self.start = len(self.lines)
            self.add(0, f"def {name}(st, env, cx{', start' if entry else ''}):")
            for i, step in enumerate(steps):
                mark = len(self.lines)
                self.step(step, checks)
                if entry:
                    self.lines[mark:] = [f"    if start <= {i}:"] + [
                        "    " + line for line in self.lines[mark:]]
            self.add(1, "return False")
            self.add(0, "")

    # ---- steps ----------------------------------------------------------------------------
    def step(self, step: S.Step, checks: bool) -> None:
        c = self.c
        k = c(step)
        self.add(1, "st._steps_left -= 1")
        self.add(1, "if st._steps_left < 0:")
        self.add(2, f"raise st._endless({k})")
        self.add(1, "try:")
        mark = len(self.lines)
        self.body(step, checks, k)
        if len(self.lines) == mark:  # a step that does nothing here (an empty procedure's)
            self.add(2, "pass")
        self.add(1, f"except {c(RUNTIME_ERRORS)} as exc:")
        self.add(2, f"raise {c(_failed)}({k}.where, {c('a step')}, exc) from exc")
        if checks:
            self.check(1, "return True")

    def check(self, depth: int, stop: str) -> None:
        """The checks after a change (the triggers and the end), and `stop` if it ended."""
        c = self.c
        self.add(depth, "if st._dirty:")
        mask = getattr(self.after_step, "mask", None)
        if mask is None:
            self.add(depth + 1, f"{c(self.after_step)}(st)")
            self.add(depth + 1, "if st.over:")
            self.add(depth + 2, stop)
        else:  # the first test of the checks, written out: no call for a change no check
            # reads (a roll, mostly, and most turns' beginnings)
            self.add(depth + 1, f"if (st._dirty | st._stale) & {c(mask)}:")
            self.add(depth + 2, f"{c(self.after_step)}(st)")
            self.add(depth + 2, "if st.over:")
            self.add(depth + 3, stop)
            self.add(depth + 1, "else:")
            self.add(depth + 2, "st._dirty = st._stale = 0")

    def call(self, depth: int, steps: tuple, checks: bool, env: str,
             pushed: bool = False) -> None:
        """Run a nested block as the machine runs a frame of it: one frame more on the stack
        (`pushed`: counted already, with others the machine pushes at once)."""
        self.enter(depth, f"{self.block(steps, checks)}(st, {env}, cx)", pushed)

    def enter(self, depth: int, call: str, pushed: bool) -> None:
        """`call` a block's function one frame deeper; stop where it stopped."""
        r = self.temp("r")
        if not pushed:
            self.add(depth, "cx.depth += 1")
        self.add(depth, f"{r} = {call}")
        self.add(depth, "cx.depth -= 1")
        self.add(depth, f"if {r}:")
        self.add(depth + 1, "return True")

    def body(self, step: S.Step, checks: bool, k: str) -> None:
        c = self.c
        cls = step.__class__
        if step.pure:
            self.effects(2, step)
        elif cls is S.If:
            self.add(2, f"if {c(step.cond)}(st, env):")
            if step.then:
                self.call(3, step.then, checks, "env")
            else:
                self.add(3, "pass")
            if step.other:
                self.add(2, "else:")
                self.call(3, step.other, checks, "env")
        elif cls is S.ForEach:
            envs, inner = self.temp("envs"), self.temp("e")
            self.add(2, f"{envs} = {c(list)}({c(step.iterate)}(st, env))")
            self.add(2, f"cx.depth += {c(len)}({envs})")
            self.add(2, f"for {inner} in {envs}:")
            self.call(3, step.body, checks, inner, pushed=True)
        elif cls is S.Run:
            if step.steps:
                self.add(2, f"if cx.depth > {c(S.MAX_NESTING)}:")
                self.add(3, f"raise {k}.too_deep()")
                self.call(2, step.steps, checks, "env")
        elif cls is S.Repeat:
            self.repeat(step, checks, k)
        elif cls is S.Break:
            self.add(2, f"raise {c(BreakSignal)}({k})")
        elif cls is S.ChanceStep or cls is S.TargetedChance:
            self.chance(step, k)
        elif cls is S.Choose:
            self.choose(step, checks, k)
        elif cls is S.Together:
            self.together(step, checks, k)
        else:  # a step this generator does not know: the game keeps the machine
            self.ok = False
            self.add(2, "pass")

    def effects(self, depth: int, step: S.Step, nested: int = 0) -> None:
        """A step that only has effects: its generated body written here, no call; a
        procedure of such steps (`run:`) its steps one after another, as `Run.run` runs
        them, within the step that runs it."""
        inline = getattr(step.run, "inline", None)
        if inline is not None and self.paste(depth, inline, {}):
            return
        if step.__class__ is S.Run and nested < _NESTED_PASTES:
            for inner in step.steps:
                self.effects(depth, inner, nested + 1)
            return
        self.add(depth, f"{self.c(step.run)}(st, env)")

    def repeat(self, step: S.Repeat, checks: bool, k: str) -> None:
        c = self.c
        cap, w, u = step.cap, step.cond_while, step.cond_until
        head = f"{c(cap)}(st, env) <= 0"
        if w is not None:
            head += f" or not {c(w)}(st, env)"
        inner, d, rounds = self.temp("e"), self.temp("d"), self.temp("n")
        tail = c(step.steps[-1])
        body = self.block(step.steps[:-1], checks)
        self.add(2, f"if not ({head}):")
        self.add(3, f"{inner} = {c(dict)}(env)")
        self.add(3, f"{inner}[{c(_ROUNDS)}] = 0")
        self.add(3, f"{d} = cx.depth")
        self.add(3, f"cx.depth = {d} + 1")
        self.add(3, "try:")
        self.add(4, "while True:")
        self.add(5, f"if {body}(st, {inner}, cx):")
        self.add(6, "return True")
        # the loop's last step (RepeatTail): one step of the loop's frame
        self.add(5, "st._steps_left -= 1")
        self.add(5, "if st._steps_left < 0:")
        self.add(6, f"raise st._endless({tail})")
        self.add(5, f"{rounds} = {inner}[{c(_ROUNDS)}] + 1")
        self.add(5, f"{inner}[{c(_ROUNDS)}] = {rounds}")
        self.add(5, f"if {rounds} >= {c(cap)}(st, {inner}):")
        self.add(6, "break")
        if u is not None:
            self.add(5, f"if {c(u)}(st, {inner}):")
            self.add(6, "break")
        if w is not None:
            self.add(5, f"if not {c(w)}(st, {inner}):")
            self.add(6, "break")
        self.add(3, f"except {c(BreakSignal)}:")
        self.add(4, "pass")
        self.add(3, f"cx.depth = {d}")

    def pause(self, depth: int, what: str) -> None:
        """Where the machine would return to the playout: the next call's work budget."""
        c = self.c
        b, u = self.temp("m"), self.temp("u")
        per_call = c(budget.WORK_PER_CALL)
        self.add(depth, f"{b} = {c(budget.LOCAL)}.m")  # this thread's meter
        self.add(depth, f"st._work_left -= cx.units - {b}.left")
        self.add(depth, f"{u} = st._work_left")
        self.add(depth, f"if {u} >= {per_call}:")
        self.add(depth + 1, f"{u} = {per_call}")
        self.add(depth + 1, f"{b}.what = {c(what)}")
        self.add(depth, "else:")
        self.add(depth + 1, f"{b}.what = {c(_late(what))}")
        self.add(depth, f"{b}.left = {u}")
        self.add(depth, f"cx.units = {u}")

    def chance(self, step: S.ChanceStep, k: str) -> None:
        c = self.c
        if step.__class__ is S.TargetedChance:
            self.add(2, f"{k}.prepare(st, env)")
        self.pause(2, _CALLS["resolve_chance"])
        view, outcome, chance = self.temp("view"), self.temp("o"), c(step.chance)
        if step.__class__ is S.ChanceStep:  # the game's own component: view_in written out
            self.add(2, f"{view} = st.gviews[{int(step.component)}]")
        else:
            self.add(2, f"{view} = {k}.view_in(st, env)")
        if step.chance.draw is not None:
            self.add(2, f"{outcome} = {c(step.chance.draw)}({view}, st.rng or st._new_rng())")
        else:
            self.add(2, f"{outcome} = {chance}.sample({view}, st.rng or st._new_rng())")
            self.add(2, f"{chance}.apply({view}, {outcome})")
        self.add(2, "st._version += 1")
        self.add(2, f"st._dirty |= {c(step.writes)}")
        self.add(2, f"st._log.append({{{c('chance')}: {c(step.name)}, "
                    f"{c('outcome')}: {outcome}}})")

    def records(self, depth: int, step: S.Choose, seat: str) -> tuple[str, str]:
        """The options of `seat` as records (see steps.Decision): the names of the list and
        of the decision's env."""
        c = self.c
        base, out, seen = self.temp("base"), self.temp("out"), self.temp("seen")
        self.add(depth, f"{base} = {c(dict)}(env) if env else {{}}")
        self.add(depth, f"{base}[{c('player')}] = st.players[{seat}]")
        self.add(depth, f"{out} = []")
        self.add(depth, f"{seen} = {c(set)}()")
        for opt in step.options:
            inline = getattr(opt.records, "inline", None)
            if inline is None or not self.paste(depth, inline, {
                    "base": base, "seat": seat, "out": out, "seen": seen}):
                self.add(depth, f"{c(opt.records)}(st, {base}, {seat}, {out}, {seen})")
        if step.pass_label is not None:
            label = c(step.pass_label)
            self.add(depth, f"if {label} not in {seen}:")
            self.add(depth + 1, f"{out}.append(({label}, {c(S._passing)}, None))")
        return out, base

    def pick(self, depth: int, out: str) -> tuple[str, str, str]:
        """A decision of the playout: a new call's budget, the random pick of a record;
        the names of its key, maker and values."""
        self.pause(depth, _CALLS["apply"])
        n = self.temp("n")
        key, make, p = self.temp("key"), self.temp("make"), self.temp("p")
        i = self.temp("i")
        self.add(depth, "cx.made += 1")
        self.add(depth, f"{n} = {self.c(len)}({out})")
        self.add(depth, "if cx.study:")  # random bots of a study: they count, and always draw
        self.add(depth + 1, f"cx.options += {n}")
        self.add(depth + 1, f"if {n} > cx.most:")
        self.add(depth + 2, f"cx.most = {n}")
        self.add(depth + 1, f"{i} = cx.randrange({n})")
        self.add(depth, "else:")
        self.add(depth + 1, f"{i} = 0 if {n} == 1 else cx.randrange({n})")
        self.add(depth, f"{key}, {make}, {p} = {out}[{i}]")
        return key, make, p

    def log(self, depth: int, seat: str, label: str) -> None:
        c = self.c
        self.add(depth, f"st._log.append({{{c('seat')}: {seat}, {c('action')}: {label}}})")

    def made(self, depth: int, record: tuple[str, str, str], base: str, seat: str) -> str:
        """The Action of the record picked, logged."""
        key, make, p = record
        a = self.temp("a")
        self.add(depth, f"{a} = {make}({key}, {seat}, {base}, {p})")
        self.log(depth, seat, f"{a}.label")
        return a

    def played(self, depth: int, record: tuple[str, str, str], seat: str) -> str:
        """Log the record picked without making its Action (its maker plays its effects:
        `make.run`); the name of that function."""
        key, make, _p = record
        run = self.temp("run")
        self.add(depth, f"{run} = {make}.run")
        self.add(depth, f"if {run} is not None:")
        self.log(depth + 1, seat, f"{key} if {key}.__class__ is {self.c(str)} else "
                                  f"{make}.label({key})")
        return run

    def act(self, depth: int, step: S.Choose, a: str, checks: bool) -> None:
        """Run the chosen action's steps: effects at once, other steps as a frame."""
        c = self.c
        effects = all(o.steps.__class__ is S.Effects or not o.steps for o in step.options)
        if effects:
            self.add(depth, f"if {a}.steps:")
            self.add(depth + 1, f"st._effects({a})")
            return
        self.add(depth, f"if {a}.steps.__class__ is {c(S.Effects)}:")
        self.add(depth + 1, f"st._effects({a})")
        self.add(depth, f"elif {a}.steps:")
        self.action_frame(depth + 1, step, a)

    def action_frame(self, depth: int, step: S.Choose, a: str, pushed: bool = False) -> None:
        """Run the steps of the Action `a` (one of `step`'s options) as the machine runs
        an action's frame (`pushed`: counted on the stack already)."""
        name = self.tables_of.get(id(step))
        if name is None:  # a table from each option's steps to the function of the frame
            table = {id(o.steps): o.steps for o in step.options if o.steps}
            names = {i: self.block(steps, self.check_effects) for i, steps in table.items()}
            name = self.tables_of[id(step)] = self.temp("acts")
            self.tables.append((name, names))
        self.enter(depth, f"{name}[{self.c(id)}({a}.steps)](st, {a}.env, cx)", pushed)

    def choose(self, step: S.Choose, checks: bool, k: str) -> None:
        c = self.c
        seat = self.temp("seat")
        who = "st.active" if step.active else f"{c(step.who)}(st, env).seat"
        self.add(2, f"{seat} = {who}")
        out, base = self.records(2, step, seat)
        self.add(2, f"if not {out}:")
        if step.none is None:
            self.add(3, f"raise {k}.no_option({seat})")
        elif step.none:
            self.call(3, step.none, checks, "env")
        else:
            self.add(3, "pass")
        if step.auto:
            # nothing to decide: the only option happens by itself, and the log says so
            a, key, make, p = (self.temp(s) for s in ("a", "key", "make", "p"))
            self.add(2, f"elif {c(len)}({out}) == 1:")
            self.add(3, f"{key}, {make}, {p} = {out}[0]")
            self.add(3, f"{a} = {make}({key}, {seat}, {base}, {p})")
            self.add(3, f"st._log.append({{{c('seat')}: {seat}, {c('action')}: {a}.label, "
                        f"{c('forced')}: True}})")
            self.add(3, f"if {a}.steps:")
            self.action_frame(4, step, a)
        self.add(2, "else:")
        record = self.pick(3, out)
        depth = 3 + self.played_inline(3, step, record, seat, base)
        run = self.played(depth, record, seat)
        self.add(depth + 1, f"{run}(st, {seat}, {base}, {record[2]})")
        self.add(depth, "else:")
        a = self.made(depth + 1, record, base, seat)
        self.act(depth + 1, step, a, checks)

    def played_inline(self, depth: int, step: S.Choose, record: tuple[str, str, str],
                      seat: str, base: str) -> int:
        """The effects of the option picked, written out for each option whose maker has
        generated effects: no call of them; 1 when there are such options (the others
        follow, one level deeper, after an `else:`), 0 when there are none."""
        key, make, p = record
        first = True
        for opt in step.options:
            maker = getattr(opt.records, "make", None)
            inline = getattr(getattr(maker, "run", None), "inline", None)
            if inline is None:
                continue
            mark = len(self.lines)
            self.add(depth, f"{'if' if first else 'elif'} {make} is {self.c(maker)}:")
            form = getattr(maker, "form", None)
            self.log(depth + 1, seat, key if maker.label is None else
                     form.label_src(key, self.c) if form is not None else
                     f"{key} if {key}.__class__ is {self.c(str)} else {make}.label({key})")
            if not self.paste(depth + 1, inline, {"seat": seat, "base": base, "values": p}):
                del self.lines[mark:]
                continue
            first = False
        if first:
            return 0
        self.add(depth, "else:")
        return 1

    def together(self, step: S.Together, checks: bool, k: str) -> None:
        c = self.c
        seat, choices = self.temp("seat"), self.temp("chosen")
        self.add(2, f"{choices} = []")
        self.add(2, "cx.depth += 1")  # the window's frame
        self.add(2, f"for {seat} in {c(step.seats)}(st, env):")
        out, base = self.records(3, step, seat)
        self.add(3, f"if {out}:")
        record = self.pick(4, out)
        if step.effects_only:
            # the effects of each choice, played after all chose: its maker's function
            # with its values, or its Action
            run = self.played(4, record, seat)
            self.add(5, f"{choices}.append(({run}, {seat}, {base}, {record[2]}))")
            self.add(4, "else:")
            a = self.made(5, record, base, seat)
            self.add(5, f"{choices}.append((None, {a}, None, None))")
            self.add(2, "cx.depth -= 1")
            run, x, b, p = (self.temp(n) for n in ("run", "x", "b", "p"))
            self.add(2, f"for {run}, {x}, {b}, {p} in {choices}:")
            self.add(3, f"if {run} is not None:")
            self.add(4, f"{run}(st, {x}, {b}, {p})")
            self.add(3, f"elif {x}.steps:")
            self.add(4, f"st._effects({x})")
            return
        a = self.made(4, record, base, seat)
        self.add(4, f"{choices}.append({a})")
        self.add(2, "cx.depth -= 1")
        a = self.temp("a")
        # each choice's steps as a frame, in seat order, all pushed at once
        todo = self.temp("todo")
        self.add(2, f"{todo} = [{a} for {a} in {choices} if {a}.steps]")
        self.add(2, f"cx.depth += {c(len)}({todo})")
        self.add(2, f"for {a} in {todo}:")
        self.action_frame(3, step, a, pushed=True)


#: a bound of decisions no turn reaches: the turn has a loop of decisions
UNBOUNDED = 10**9


def decisions_bound(steps: tuple, players: int, busy: frozenset = frozenset()) -> int:
    """The most decisions `steps` can ask of `players` players (UNBOUNDED where a loop or
    a procedure that runs itself asks for them): a playout that may make only so many
    more plays a turn on the generated turns only when they cannot run out within it."""
    total = 0
    for step in steps:
        cls = step.__class__
        if step.pure or cls in (S.ChanceStep, S.TargetedChance, S.Break):
            continue
        if cls is S.If:
            n = max(decisions_bound(step.then, players, busy),
                    decisions_bound(step.other, players, busy))
        elif cls is S.ForEach or cls is S.Repeat:
            body = step.body if cls is S.ForEach else step.steps[:-1]
            n = 0 if decisions_bound(body, players, busy) == 0 else UNBOUNDED
        elif cls is S.Run:
            n = (UNBOUNDED if id(step.steps) in busy else
                 decisions_bound(step.steps, players, busy | {id(step.steps)}))
        elif cls is S.Choose or cls is S.Together:
            each = 1 + max([decisions_bound(o.steps, players, busy) for o in step.options]
                           + [decisions_bound(step.none or (), players, busy)])
            n = each * (players if cls is S.Together else 1)
        else:
            n = UNBOUNDED
        total = min(UNBOUNDED, total + n)
    return total


def turn_bounds(phases: list, min_players: int, max_players: int) -> dict[int, list]:
    """For each count of players, each phase, each step of its turn: the most decisions
    the rest of the turn from that step can ask (see `decisions_bound`)."""
    return {n: [[decisions_bound(steps[i:], n) for i in range(len(steps) + 1)]
                for _name, steps, _until in phases]
            for n in range(min_players, max_players + 1)}


def turns_function(phases: list, check_effects: bool, after_step: Any
                   ) -> tuple[Any, str] | None:
    """The generated turns of a game, `turns(st, cx, start)`, and their source; None when
    a step has no generated form (the game's playouts keep the machine).

    `turns` is called where the machine is about to run step `start` of a turn, with only
    the turn's frame on its stack; it plays that turn and the turns after it until the
    game is over.
    """
    if not ENABLED:
        return None
    consts: dict[str, Any] = {}
    w = _Writer(check_effects, after_step if after_step is not None else State._after_step,
                consts)
    with pysource.collecting(consts):
        names = [w.block(steps, True) for _name, steps, _until in phases]
        w.write_all(set(names))
        if not w.ok:
            return None
        for name, table in w.tables:
            items = ", ".join(f"{pysource.const(i)}: {fn}" for i, fn in table.items())
            w.add(0, f"{name} = {{{items}}}")
        w.add(0, "")
        body = _inlined(w.lines, names[0]) if len(names) == 1 else None
        mark = len(w.lines)
        w.check(3, "return")
        check = "\n".join(w.lines[mark:]).lstrip()
        del w.lines[mark:]
        w.lines.append(_TURNS.format(
            check=check,
            phases="" if body is not None else "".join(f"{name}, " for name in names),
            phase_steps=w.c(tuple(steps for _n, steps, _u in phases)),
            turn=w.c("turn"), frame=w.c(S.SeqFrame),
            signal=w.c(BreakSignal),
            play=(f"if PHASES[st.phase](st, env, cx, start):\n{' ' * 16}return"
                  if body is None else body.lstrip())))
    source = "\n".join(w.lines) + "\n"
    return pysource.compile_function(source, consts, "turns"), f"# the turns\n{source}"



def _inlined(lines: list[str], name: str) -> str | None:
    """The body of the phase function `name`, taken out of `lines`, as the lines of the
    turns' loop that play a turn (the function of a game's one phase is called once per
    turn: written into the loop, it is not called at all); None when another function
    calls it."""
    head = f"def {name}(st, env, cx, start):"
    first = lines.index(head)
    last = lines.index("", first)
    call = re.compile(rf"\b{name}\(")
    if any(call.search(line) for line in lines[:first] + lines[last:]):
        return None
    body = lines[first + 1:last]
    del lines[first:last + 1]
    assert body[-1] == "    return False"  # the end of the turn: the loop goes on
    # from the function's indent (4) to the loop's (12); stopping returns from the turns
    return "\n".join(" " * 8 + (line[:-5] if line.strip() == "return True" else line)
                     for line in body[:-1])


#: the turns one after another, `turns(st, cx, start)`: `start` is the step of the first
#: turn to run first (see turns_function)
_TURNS = """
PHASES = ({phases})
PHASE_STEPS = {phase_steps}

def turns(st, cx, start):
    env = st._stack.pop().env
    try:
        while True:
            cx.depth = 1
            # checked before the step, as the machine checks before each step of its frame
            # (after the setup, whose frame is not checked, a chance step, or as a turn
            # begins)
            {check}
            {play}
            start = 0
            st._next_turn({turn}, False)
            if st.over:
                return
            # a playout that may make only so many more decisions plays a turn here only
            # if it cannot stop within it; otherwise the machine plays on from its frame
            if cx.left >= 0 and cx.left - cx.made <= cx.bounds[st.phase][0]:
                st._stack.append({frame}(PHASE_STEPS[st.phase], {{}}, {turn}, True))
                return
            env = {{}}
    except {signal} as signal:
        raise signal.step.outside() from None
"""
