"""The worked solutions: the teacher's file, not part of the installed package.

A checkout of the course (the self-paced edition) has it, so ``solution()`` answers and
``make notebooks`` generates 14-solutions from it; a student's install of the package
(the graded edition) does not carry it, and neither does the grader's sandbox. Each entry
is code that sets the exercise's answer variables and ends with its check. It is read as
data (``ast.literal_eval``), never imported.
"""

SOLUTIONS = {
    'q1': (
        "history = [Turn('hello', 'world'), Turn('Tell me everything.', 'x' * 200)]\n"
        'parts = byte_breakdown(SYSTEM, history, QUESTION)\n'
        "budget = parts['envelope'] + parts['system'] + parts['question'] + parts['turns'][0]\n"
        'predicted_kept = 0   # the newest turn does not fit, and select never skips it\n'
        'q1.check(history, budget, predicted_kept)'
    ),
    'q2': (
        'n = 0\n'
        'while len(request_bytes(SYSTEM, [], grown_question(n))) <= GROW_BUDGET:\n'
        '    n += 1\n'
        'q2.check(n)  # the first count whose mandatory input is over the budget'
    ),
    'q3': (
        'def java_length(text):\n'
        "    return len(text.encode('utf-16-le')) // 2   # UTF-16 code units, no byte-order mark\n"
        '\n'
        'q3.check(java_length)'
    ),
    'q4': (
        'body = request_bytes(SYSTEM, [], QUESTION)\n'
        "java_budget = len(body.decode('utf-8').encode('utf-16-le')) // 2   # its UTF-16 units\n"
        'q4.check(java_budget)  # every budget from it to one byte short of the body slips through'
    ),
    'q5': (
        "requests_budget = len(request_bytes(SYSTEM, list(HISTORY), QUESTION, encoder='requests'))\n"
        'q5.check(requests_budget)'
    ),
    'q6': (
        'import tempfile\n'
        'from pathlib import Path\n'
        'with tempfile.TemporaryDirectory() as folder:\n'
        "    path = Path(folder) / 'torn.log'\n"
        '    path.write_bytes(torn_journal())\n'
        '    with Journal(path) as journal:\n'
        '        turns_after_open = len(journal)\n'
        '    file_bytes_after_open = path.stat().st_size\n'
        'q6.check(turns_after_open, file_bytes_after_open)'
    ),
    'q7': (
        "needed = request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='o200k_base')\n"
        'max_tokens = needed + WINDOW_RESERVE   # the request, and the reserve for the reply\n'
        'q7.check(max_tokens)'
    ),
    'q8': (
        'pinned = select(*PINNED, 10_000, facts=EXERCISE_FACTS)\n'
        'system, turns, question = PINNED   # not history: that name is exercise 1\'s answer\n'
        'with_newest = len(request_bytes(system, turns[-1:], question))\n'
        '# the facts add the same bytes whatever turns are kept, so the parts add up\n'
        'facts_budget = with_newest + pinned.fact_bytes\n'
        'q8.check(facts_budget)   # the mandatory input and turn two, + the three facts'
    ),
    'q9': (
        'def find_orphans(messages):\n'
        '    found, waiting, opened = [], set(), None   # waiting: the open round\'s unanswered ids\n'
        '    for index, message in enumerate(messages):\n'
        "        if message['role'] == 'tool':\n"
        "            if message['tool_call_id'] in waiting:\n"
        "                waiting.discard(message['tool_call_id'])\n"
        '            else:\n'
        '                found.append(index)     # answers no open call: tool-after-call\n'
        '            continue\n'
        '        if waiting:\n'
        '            found.append(opened)        # a call left unanswered: calls-answered\n'
        '        waiting, opened = set(), None\n'
        "        if message['role'] == 'assistant' and message.get('tool_calls'):\n"
        "            waiting, opened = {call['id'] for call in message['tool_calls']}, index\n"
        '    if waiting:\n'
        '        found.append(opened)\n'
        '    return sorted(found)\n'
        '\n'
        'q9.check(find_orphans)'
    ),
    'q10': (
        'system, turns, question = MEMORY   # not history: that name is exercise 1\'s answer\n'
        '# the request that sends the evidence, the summary and the newest turn, measured whole\n'
        'summary_budget = len(request_bytes(system, turns[-1:], question, evidence=[EVIDENCE],\n'
        '                                   summaries=[SUMMARY]))\n'
        'q10.check(summary_budget)'
    ),
    'q11': (
        'system, turns, question = REASONED\n'
        '# select keeps whole turns, newest first: the request with the newest turn alone,\n'
        '# its reasoning item included, in the dialect the item belongs to\n'
        'reasoned_budget = len(request_bytes(system, turns[-1:], question,\n'
        '                                    dialect="openai-responses",\n'
        '                                    tools=[fixtures.LOOKUP_TOOL]))\n'
        'q11.check(reasoned_budget)'
    ),
    'q12': (
        'system, turns = CONVERSATION\n'
        'schedule = []   # each call passes the one before as previous=: the cache-stable rule\n'
        'for call in range(len(turns)):   # call n sends turns[:n] and turns[n].question\n'
        '    schedule.append(select(system, turns[:call], turns[call].question, CACHE_BUDGET,\n'
        '                           previous=schedule[-1] if schedule else None,\n'
        '                           low_water=CACHE_LOW_WATER, cache_breakpoints=True,\n'
        '                           dialect="anthropic-messages"))   # marks: Anthropic caches up to them\n'
        'bill = simulate_bill([(request.payload, 30.0) for request in schedule], "claude-opus-4-8")\n'
        'cached_tokens = sum(call.cached for call in bill)\n'
        'q12.check(cached_tokens)'
    ),
    'exercise02': (
        'def my_select(system, history, current, max_bytes):\n'
        '    # as select does: from no turn, add turns from the newest back\n'
        '    if len(request_bytes(system, [], current)) > max_bytes:\n'
        '        return None   # the mandatory input alone does not fit: select refuses\n'
        '    start = len(history)\n'
        '    while start > 0 and len(request_bytes(system, history[start - 1:], current)) <= max_bytes:\n'
        '        start -= 1   # the next older turn fits: keep it\n'
        '    return history[start:]   # the first turn that does not fit ends the walk: no packing\n'
        '\n'
        'exercise02.check(my_select)'
    ),
}
