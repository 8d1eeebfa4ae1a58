"""The words of a failed allocation's counts
(``allocsvc.conductor.explain``), from counts made by hand: the entries,
the sentence Ironic would choose, and a reason that fits its column."""

from allocsvc.conductor import explain
from allocsvc.db.baremetal import candidates

Counts = candidates.Counts


def _request(**asked):
    return explain.Request(**dict({'resource_class': 'baremetal'}, **asked))


def test_entries_in_order_with_the_trait_named():
    counts = Counts(7, [('maintenance', None, 2), ('not_owner', None, 1),
                        ('missing_trait', 'CUSTOM_Z', 3)], 1, 4)
    assert explain.entries(counts, 'p1', ('refused', 1)) == [
        {'reason': 'maintenance', 'count': 2, 'detail': 'in maintenance'},
        {'reason': 'not_owner', 'count': 1,
         'detail': 'neither owned nor leased by p1'},
        {'reason': 'missing_trait', 'count': 3, 'trait': 'CUSTOM_Z',
         'detail': 'missing trait CUSTOM_Z'},
        {'reason': 'refused', 'count': 1,
         'detail': 'refused by Placement (no free unit on their resource '
                   'provider)'}]
    # Nothing unoffered: no entry.
    assert len(explain.entries(counts, 'p1', ('changed', 0))) == 3


def test_every_reason_has_words():
    reasons = [candidates.NOT_AVAILABLE, candidates.MAINTENANCE,
               candidates.NO_POWER_STATE, candidates.ALLOCATED,
               candidates.HELD, candidates.RESERVED, candidates.NOT_OWNER,
               candidates.MISSING_TRAIT, candidates.NOT_CANDIDATE,
               candidates.LOST, explain.REFUSED, explain.CHANGED]
    assert sorted(explain.WORDS) == sorted(reasons)


def test_the_sentence_is_ironics():
    none = Counts(3, [('maintenance', None, 3)], 0, 0)
    but_traits = Counts(3, [('missing_trait', 'CUSTOM_A', 3)], 0, 3)
    assert explain.sentence(_request(), none) == (
        'no available nodes match the resource class baremetal')
    assert explain.sentence(_request(candidate_nodes=['u']), none) == (
        'none of the requested nodes are available and match the '
        'resource class baremetal')
    assert explain.sentence(_request(traits=['CUSTOM_B', 'CUSTOM_A',
                                             'CUSTOM_A']),
                            but_traits) == (
        'no suitable nodes have the requested traits CUSTOM_A, CUSTOM_B')
    # Nodes fit but for something else than traits (the placement back
    # end refused them): without traits, the class.
    assert explain.sentence(_request(), Counts(1, [], 1, 1)) == (
        'no available nodes match the resource class baremetal')


def test_the_head_counts_the_class():
    assert explain.reason('s', 'gpu', 0, []) == (
        's (no node has resource class gpu)')
    one = [{'count': 1, 'detail': 'in maintenance'}]
    assert explain.reason('s', 'gpu', 1, one) == (
        's (1 node has resource class gpu: 1 in maintenance)')
    assert explain.reason('s', 'gpu', 2, one) == (
        's (2 nodes have resource class gpu: 1 in maintenance)')


def test_a_reason_fits_its_column():
    found = [{'count': 1, 'detail': 'missing trait CUSTOM_%05d' % i}
             for i in range(5000)]
    text = explain.reason('no suitable nodes have ...', 'baremetal', 5000,
                          found)
    assert len(text.encode('utf-8')) <= explain.MAX_REASON_BYTES
    assert text.endswith(' for other reasons)')
    shown = text[text.index(': ') + 2:-1].split(', ')
    assert sum(int(part.split()[0]) for part in shown) == 5000
    # With the prefix and the dot, MariaDB's TEXT holds it.
    whole = 'Failed to process allocation %s: %s.' % ('u' * 36, text)
    assert len(whole.encode('utf-8')) <= 65535
    # Multi-byte text is cut on a character.
    cut = explain.reason('\u00e9' * 40, 'baremetal', 0, [], limit=21)
    assert cut == '\u00e9' * 9 + '...'
