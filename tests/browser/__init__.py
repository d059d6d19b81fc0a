"""JupyterLab in Chromium and the accessibility audit of every page the kit makes."""
