"""The hands each preset's whole game plays on the C core (the simulator's end-to-end games')."""
from ..e2e import test_e2e_ema, test_e2e_mcr, test_e2e_mleague, test_e2e_sanma, test_e2e_wrc, test_e2e_zung_jung

HANDS = {"ema-2016": test_e2e_ema.HANDS, "wrc": test_e2e_wrc.HANDS, "mleague": test_e2e_mleague.HANDS,
         "sanma": test_e2e_sanma.HANDS, "mcr": [hand for hand, _ in test_e2e_mcr.PLAY],
         "zung-jung": [hand for hand, _ in test_e2e_zung_jung.PLAY]}
