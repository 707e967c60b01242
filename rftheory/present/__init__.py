"""Presentation: tables, plots, the formula sheet, notation, help texts and the progress bar."""
