"""Each learner's own exercises: the same questions on a fixture of their own.

The lessons teach with the article's fixture (``ARTICLE``), and print its figures: asked about
it, exercise 4's answer is in 03, exercise 5's in 07, exercise 6's in 05. So the exercises ask
about a *variant*: other texts, budgets, turns and facts, made from a key. A graded class gets
one per student, whose key comes from the student's name and a secret the teacher keeps
(HMAC-SHA256), so a classmate cannot make another's variant, and the same roster and secret
always give the same variants. The self-paced edition gets one too (``SELF_PACED``), made the
same way from a secret published below: no one's secret, so 14-solutions can answer it.

The student's notebook holds their key (``use_variant(key)``, before anything else is
imported); ``check()`` then checks against it, and the grader checks each submission
against the key of the name it is filed under, whatever key the notebook holds: a notebook
copied from a classmate is graded on the copier's variant. PrairieLearn's seeded variants
are the model.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from dataclasses import dataclass

from ledgerlab import Fact, Summary, Turn, encode_record, request_bytes

from .. import fixtures

KEY = re.compile(r"[0-9a-f]{16}")


class VariantError(ValueError):
    """A key or a roster name that cannot make a variant."""


@dataclass(frozen=True)
class Variant:
    """What the exercises ask about. ``key`` is "" for the article's fixture."""

    key: str
    system: str
    question: str
    history: tuple[Turn, Turn]
    grow_budget: int  # exercise 2: the budget the question is grown against
    journal_turns: tuple[tuple[str, Turn], tuple[str, Turn]]  # exercise 6: the complete lines
    torn_turn: Turn  # exercise 6: the record a crash cut
    torn_after: int  # exercise 6: the bytes of that record that reached the disk
    window_reserve: int  # exercise 7: the tokens kept for the reply
    pinned: tuple[str, tuple[Turn, ...], str]  # exercise 8: system, history, question
    facts: tuple[Fact, ...]  # exercise 8: the facts pinned
    memory: tuple[str, tuple[Turn, Turn, Turn], str]  # exercise 10: system, history, question
    summary: Summary  # exercise 10: the summary of turns one and two

    def __repr__(self) -> str:  # the texts are fixtures, but a repr stays short
        return f"Variant({self.key or 'the article'!r})"


ARTICLE = Variant(
    key="",
    system=fixtures.BOUNDARY_SYSTEM,
    question=fixtures.BOUNDARY_QUESTION,
    history=fixtures.BOUNDARY_HISTORY,
    grow_budget=235,
    journal_turns=fixtures.SCENARIO_TURNS,
    torn_turn=Turn(fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY),
    torn_after=40,
    window_reserve=20,
    pinned=(fixtures.SCENARIO_SYSTEM, fixtures.SCENARIO_HISTORY, fixtures.NEXT_STEP_QUESTION),
    facts=fixtures.PINNED_FACTS + (fixtures.DEADLINE_FACT,),
    memory=(fixtures.SCENARIO_SYSTEM, fixtures.MEMORY_HISTORY, fixtures.MEMORY_QUESTION),
    summary=fixtures.EARLY_SUMMARY,
)

# The variants' texts. A variant's system message is several of these sentences, so that its
# requests run to several hundred bytes, past most of the figures the course prints; each
# sentence has characters of more than one UTF-8 byte, so that UTF-16 units, code points and
# bytes differ (exercises 3 to 5).
SENTENCES = ("只根据已知信息回答。", "Réponds seulement à partir des faits connus.",
             "既知の情報だけで答えてください。", "Отвечай только по известным фактам.",
             "Antworte nur mit dem, was bekannt ist. ✅", "Απάντησε μόνο με όσα είναι γνωστά.",
             "알려진 정보로만 답하세요.", "Responde solo con lo que ya sabes 📘",
             "如果不知道，就说不知道。", "Sê breve e não inventes nada.",
             "Nie zgaduj: zapytaj, jeśli czegoś brakuje.", "Cite the turn a fact came from — always.",
             "不要重复用户的原话。", "Ne répète pas les données privées 🔒")
QUESTIONS = ("继续🙂", "Et ensuite ? 🙂", "続けて 🙂", "Дальше? 🙂", "Weiter bitte 🙂",
             "Συνέχισε 🙂", "계속 🙂", "¿Y después? 🙂")
TURNS = (Turn("hello", "world"), Turn('接口 "是什么"', "Java\n接口"),
         Turn("Quelle version ?", "Java 8, café ☕"), Turn("いつ？", "金曜日までに"),
         Turn("Где лог?", "В папке logs/"), Turn("Which port?", "Port 8080 🔌"),
         Turn("Wer prüft?", "Jürgen prüft."), Turn("Τι ώρα;", "Στις 10:30"),
         Turn("What is the code name?", "ORCHID-17 🌸"), Turn("Dónde está?", "En el índice"))
TORN = (ARTICLE.torn_turn,
        Turn("Summarise the plan.", "Three steps, then review."),
        Turn("What changed?", "The budget, in bytes."))
THIRD_FACTS = (("deadline", "Friday"), ("deadline", "3 March"), ("deadline", "next Tuesday"),
               ("reviewer", "Dana"), ("reviewer", "Zoë"), ("release day", "Thursday"),
               ("meeting room", "B-204"), ("meeting room", "会议室 3"),
               ("build server", "ci-07"), ("build server", "ci-12"))
RESERVES = (8, 12, 16, 24, 32, 40, 48)
# Exercise 10's summaries of turns one and two (not the article's): shorter than any variant's
# turn two, as a summary is shorter than what it covers, so a summary and the newest turn can
# fit where turn two and the newest cannot; of many lengths, so that the answers spread.
SUMMARY_TEXTS = ("ORCHID-17.", "Code: ORCHID-17 🌸", "コード ORCHID-17、Java 8。",
                 "Κωδικός ORCHID-17, Java 8.", "项目代码 ORCHID-17，Java 8。",
                 "Projet ORCHID-17, client Java 8 ☕", "Código ORCHID-17; cliente Java 8 📘",
                 "ORCHID-17 — Java 8 client, code noted.", "Код ORCHID-17, клиент на Java 8.",
                 "Der Code ist ORCHID-17; der Client läuft auf Java 8.",
                 "Le code du projet est ORCHID-17 ; le client tourne sous Java 8.",
                 "The user's project is ORCHID-17 and their client runs on Java 8 ☕.")


def normalized(name: str) -> str:
    """A roster name as the key is made from: NFC, trimmed, case folded."""
    return unicodedata.normalize("NFC", name).strip().casefold()


def variant_key(secret: bytes, name: str, attempt: int = 0) -> str:
    """The key of ``name``'s variant: 16 hex digits of HMAC-SHA256(secret, name).

    ``attempt`` picks the next key when a variant is refused (its answers show in the
    course's outputs); the assignment's roster records the key it took."""
    if not normalized(name):
        raise VariantError("a roster name is empty")
    message = f"{normalized(name)}\n{attempt}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]


class _Draws:
    """Choices made from a key by SHA-256 alone. Not ``random``: its ``choice`` and ``sample``
    may change between Python versions, and a student's kernel and the grader must make the
    same variant from the same key."""

    def __init__(self, key: str) -> None:
        self.key, self.count = key, 0

    def below(self, limit: int) -> int:
        self.count += 1
        digest = hashlib.sha256(f"{self.key}:{self.count}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % limit

    def choice(self, items):
        return items[self.below(len(items))]

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)

    def sample(self, items, count: int) -> list:
        pool = list(items)
        return [pool.pop(self.below(len(pool))) for _ in range(count)]


def variant(key: str) -> Variant:
    """The variant a key makes; the same key always makes the same variant."""
    if key == "":
        return ARTICLE
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise VariantError("a variant key is 16 lowercase hex digits, as use_variant was given "
                           "it in the graded notebook")
    rng = _Draws(key)
    system = " ".join(rng.sample(SENTENCES, rng.between(6, 10)))
    question = rng.choice(QUESTIONS)
    older, newest, one, two, pinned_turn = rng.sample(TURNS, 5)

    def longer(turn: Turn) -> Turn:  # a turn of several hundred bytes, past most printed figures
        return Turn(turn.question, " ".join([turn.answer, *rng.sample(SENTENCES, rng.between(1, 4))]))

    one, two, pinned_turn = longer(one), longer(two), longer(pinned_turn)
    torn = rng.choice(TORN)
    torn_length = len(encode_record("three", torn.question, torn.answer))
    thing, value = rng.choice(THIRD_FACTS)
    third = Fact(thing.replace(" ", "-"), f"The {thing} is {value}.", origin="one")
    return Variant(
        key=key, system=system, question=question, history=(older, newest),
        grow_budget=len(request_bytes(system, [], question)) + rng.between(40, 120),
        journal_turns=(("one", one), ("two", two)), torn_turn=torn,
        torn_after=rng.between(8, torn_length - 2), window_reserve=rng.choice(RESERVES),
        pinned=(fixtures.SCENARIO_SYSTEM, (fixtures.SCENARIO_HISTORY[0], pinned_turn),
                fixtures.NEXT_STEP_QUESTION),
        facts=fixtures.PINNED_FACTS + (third,),
        # Drawn last, so that the earlier exercises' variants are what they were before it.
        memory=(fixtures.SCENARIO_SYSTEM, (fixtures.SCENARIO_HISTORY[0], pinned_turn,
                                           rng.choice(TORN)), fixtures.MEMORY_QUESTION),
        summary=_summary(rng, pinned_turn))


def _summary(rng: _Draws, turn_two: Turn) -> Summary:
    """Exercise 10's summary of turns one and two: a text whose summary costs less than turn
    two, so that the summary and the newest turn fit where turn two and the newest do not."""
    system, question = fixtures.SCENARIO_SYSTEM, fixtures.MEMORY_QUESTION
    bare = len(request_bytes(system, [], question))
    two = len(request_bytes(system, [turn_two], question)) - bare
    fits = [text for text in SUMMARY_TEXTS
            if len(request_bytes(system, [], question, summaries=[
                Summary("early", text, covers=fixtures.MEMORY_IDS[:2])])) - bare < two]
    return Summary("early", rng.choice(fits), covers=fixtures.MEMORY_IDS[:2])


# --- The self-paced edition's variant ------------------------------------------------
# Made as a student's is, by variant_key and variant, from a key anyone can make again: the
# secret and the name are these, published. Its attempt is the first whose answers (numbers of
# 10 or more, and exercise 7's token count beside the reserve 12 states) show nowhere in
# notebooks 00-11, as the roster passes over a student's key whose answers show:
# tests/course/test_self_paced_answers.py checks it, and names the next attempt that passes
# when the course starts printing one of them.
SELF_PACED_SECRET = b"ledgerlab: the self-paced edition, published"
SELF_PACED_NAME = "self-paced learner"
SELF_PACED_ATTEMPT = 79
SELF_PACED = variant(variant_key(SELF_PACED_SECRET, SELF_PACED_NAME, SELF_PACED_ATTEMPT))


# --- The variant a learner's checks use ------------------------------------------------

_active = SELF_PACED


def use_variant(key: str) -> Variant:
    """Check every exercise against the variant of ``key`` from now on, in this kernel
    (the graded notebook's first cell); names such as ``SYSTEM`` imported afterwards are
    the variant's. ``""`` is the article's fixture, ``SELF_PACED.key`` the self-paced one."""
    global _active
    _active = variant(key)
    return _active


def active() -> Variant:
    """The variant ``check()`` uses: the self-paced edition's, unless ``use_variant`` chose
    another."""
    return _active
